import type { EcosystemId, GapSets, ProjectMetrics, UntracedGapSets, UntracedMetrics } from '../core/types.js';
import { ecosystemById } from '../ecosystems/index.js';

function minus(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  return [...a].filter((x) => !b.has(x)).sort();
}

function ratio(num: number, den: number): number {
  return den === 0 ? 0 : num / den;
}

/** Gap sets between the three layers (docs/paper-data.md §4). */
export function gapSets(d1: ReadonlySet<string>, d2: ReadonlySet<string>, d3: ReadonlySet<string>): GapSets {
  return {
    phantom: minus(d1, d3),
    hidden: minus(d3, d1),
    bloat: minus(d2, d3),
    transitive: minus(d2, d1),
  };
}

/**
 * Per-project metrics. Rates are 0 when their denominator is 0 (the paper's convention); inflation is
 * null when nothing was declared; precision/recall/F1 are null when D1 and D3 are both empty (such
 * projects are excluded from the paper's Table 4).
 */
export function projectMetrics(d1: ReadonlySet<string>, d2: ReadonlySet<string>, d3: ReadonlySet<string>): ProjectMetrics {
  const n1 = d1.size;
  const n2 = d2.size;
  const n3 = d3.size;
  const both = [...d1].filter((x) => d3.has(x)).length;
  let precision: number | null = null;
  let recall: number | null = null;
  let f1: number | null = null;
  if (n1 > 0 || n3 > 0) {
    precision = n1 === 0 ? 1 : both / n1;
    recall = n3 === 0 ? 1 : both / n3;
    f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  }
  return {
    n1,
    n2,
    n3,
    inflation: n1 === 0 ? null : n2 / n1,
    phantomRate: ratio(n1 - both, n1),
    hiddenRate: ratio(n3 - both, n3),
    bloatRate: ratio([...d2].filter((x) => !d3.has(x)).length, n2),
    precision,
    recall,
    f1,
  };
}

/**
 * Languages for which the paper defines the installed set as the declared one (D2 := D1), as their ecosystem says
 * (C++: CMake has no package manager that resolves dependencies transitively). envproof measures D2 there too and
 * reports the paper-compatible figures beside its own.
 */
export function paperInstalledIsDeclared(language: EcosystemId): boolean {
  return ecosystemById(language)?.paperInstalledIsDeclared === true;
}

/** Gaps when D3 is unknown (the program never started): only the install-side gap exists. */
export function gapSetsWithoutTrace(d1: ReadonlySet<string>, d2: ReadonlySet<string>): UntracedGapSets {
  return { phantom: null, hidden: null, bloat: null, transitive: minus(d2, d1) };
}

/** Metrics when D3 is unknown: inflation and the counts of D1 and D2; everything that needs D3 is null. */
export function projectMetricsWithoutTrace(d1: ReadonlySet<string>, d2: ReadonlySet<string>): UntracedMetrics {
  return {
    n1: d1.size,
    n2: d2.size,
    n3: null,
    inflation: d1.size === 0 ? null : d2.size / d1.size,
    phantomRate: null,
    hiddenRate: null,
    bloatRate: null,
    precision: null,
    recall: null,
    f1: null,
  };
}
