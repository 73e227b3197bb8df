/** From the layers of one audit to what the report says about them: entries, counts, gaps and metrics. */
import { nameSet, uniqueDependencies } from '../core/names.js';
import type { Dependency, EcosystemId } from '../core/types.js';
import { gapSets, gapSetsWithoutTrace, paperInstalledIsDeclared, projectMetrics, projectMetricsWithoutTrace } from '../metrics/project.js';
import type { AuditReport, LayerCount, LayerEntry } from './report.js';

export function layer(deps: readonly Dependency[]): LayerEntry[] {
  return uniqueDependencies(deps).map(({ name, version, id, systemVersion }) => ({
    name,
    ...(version ? { version } : {}),
    ...(id ? { id } : {}),
    ...(systemVersion ? { systemVersion } : {}),
  }));
}

function count(deps: readonly Dependency[]): LayerCount {
  return { entries: uniqueDependencies(deps).length, names: nameSet(deps).size };
}

export interface Layers {
  declared: Dependency[];
  installed: Dependency[];
  /** Null when the program never started: D3 is unknown. */
  traced: Dependency[] | null;
  /** Other views of D3. */
  alternatives: Record<string, Dependency[]>;
  buildTools: { declared: Dependency[]; found: Dependency[] };
  /** D2 without development-only packages, where the install includes them (InstallResult.production). */
  production?: Dependency[];
}

export type Measured = Pick<AuditReport, 'layers' | 'layerCounts' | 'alternatives' | 'alternativeMetrics' | 'paperCompatible' | 'productionOnly' | 'gaps' | 'metrics'>;

/**
 * Gaps and metrics by name, for D3 and each alternative view of it; with build tools, also the paper's figure
 * (`withBuildTools`: D1 and D2 counting them, as the paper counts every find_package name). Without D3, only what
 * D1 and D2 give. Where the paper defines D2 := D1 (C++), its figures come beside envproof's own (`paperCompatible`).
 */
export function measure(l: Layers, ecosystem: EcosystemId): Measured {
  const measured = { ...measureLayers(l), ...(l.production ? { productionOnly: productionOnly(l, l.production) } : {}) };
  if (!paperInstalledIsDeclared(ecosystem)) return measured;
  const paper = measureLayers({ ...l, installed: l.declared, buildTools: { declared: [], found: [] } });
  return { ...measured, paperCompatible: { installed: paper.layers.installed, gaps: paper.gaps, metrics: paper.metrics } };
}

/** The gaps and metrics with the production-only D2 in place of D2 (D1 and D3 as they are). */
function productionOnly(l: Layers, production: Dependency[]): NonNullable<AuditReport['productionOnly']> {
  const m = measureLayers({ ...l, installed: production, alternatives: {}, buildTools: { declared: [], found: [] } });
  return { installed: m.layers.installed, count: m.layerCounts.installed, gaps: m.gaps, metrics: m.metrics };
}

function measureLayers(l: Layers): Measured {
  const d1 = nameSet(l.declared);
  const d2 = nameSet(l.installed);
  const layers = { declared: layer(l.declared), installed: layer(l.installed) };
  const counts = { declared: count(l.declared), installed: count(l.installed) };
  if (l.traced === null) {
    return {
      layers: { ...layers, traced: null },
      layerCounts: { ...counts, traced: null },
      alternatives: {},
      alternativeMetrics: {},
      gaps: gapSetsWithoutTrace(d1, d2),
      metrics: projectMetricsWithoutTrace(d1, d2),
    };
  }
  const d3 = nameSet(l.traced);
  const alternativeMetrics = Object.fromEntries(
    Object.entries(l.alternatives).map(([k, v]) => [k, { gaps: gapSets(d1, d2, nameSet(v)), metrics: projectMetrics(d1, d2, nameSet(v)) }]),
  );
  if (l.buildTools.declared.length || l.buildTools.found.length) {
    const d1Paper = new Set([...d1, ...nameSet(l.buildTools.declared)]);
    const d2Paper = new Set([...d2, ...nameSet(l.buildTools.found)]);
    alternativeMetrics.withBuildTools = { gaps: gapSets(d1Paper, d2Paper, d3), metrics: projectMetrics(d1Paper, d2Paper, d3) };
  }
  return {
    layers: { ...layers, traced: layer(l.traced) },
    layerCounts: { ...counts, traced: count(l.traced) },
    alternatives: Object.fromEntries(Object.entries(l.alternatives).map(([k, v]) => [k, layer(v)])),
    alternativeMetrics,
    gaps: gapSets(d1, d2, d3),
    metrics: projectMetrics(d1, d2, d3),
  };
}
