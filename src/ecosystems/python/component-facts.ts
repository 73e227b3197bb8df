/**
 * SBOM facts of a Python environment, from pip's own installation report (`pip install --report`): the hash of
 * each archive pip installed (the wheel or sdist it downloaded or took from its cache, as the index gave it), and
 * the dependency graph from each distribution's `Requires-Dist`, evaluated for the environment pip installed for
 * (the report's marker values), following the extras that were asked for.
 */
import path from 'node:path';
import { pep503 } from '../../core/names.js';
import type { Dependency } from '../../core/types.js';
import { pythonLicense } from '../licenses.js';
import { componentKey, type ComponentFact, type ComponentFacts, type ComponentHash, type HashAlgorithm } from '../outputs.js';
import type { AuditContext } from '../types.js';
import { DEFAULT_MARKER_ENV, evaluateMarker, type MarkerEnvironment } from './markers.js';
import { parseRequirement } from './pep508.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';

/** Where pip writes its installation report, as seen inside the sandbox. */
export function pipReportPath(ctx: AuditContext): string {
  return path.posix.join(ctx.envDir, 'pip-report.json');
}

interface ReportItem {
  download_info?: { url?: string; archive_info?: { hash?: string; hashes?: Record<string, string> } };
  requested?: boolean;
  requested_extras?: string[];
  metadata?: { name?: string; version?: string; requires_dist?: string[]; license_expression?: string; license?: string; classifier?: string[] };
}

const ALGORITHMS: Record<string, HashAlgorithm> = { md5: 'MD5', sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

function hashesOf(item: ReportItem): ComponentHash[] {
  const info = item.download_info?.archive_info;
  const found: Record<string, string> = { ...(info?.hashes ?? {}) };
  const legacy = info?.hash && /^(\w+)=([0-9a-f]+)$/i.exec(info.hash);
  if (legacy) found[legacy[1]!.toLowerCase()] ??= legacy[2]!;
  return Object.entries(found)
    .filter(([alg, value]) => ALGORITHMS[alg.toLowerCase()] && /^[0-9a-f]+$/i.test(value))
    .map(([alg, value]) => ({ algorithm: ALGORITHMS[alg.toLowerCase()]!, value: value.toLowerCase() }));
}

interface Edge {
  to: string;
  extras: string[];
  marker?: string;
}

function edgesOf(item: ReportItem): Edge[] {
  const edges: Edge[] = [];
  for (const text of item.metadata?.requires_dist ?? []) {
    const parsed = parseRequirement(text);
    if (parsed.ok) edges.push({ to: pep503(parsed.requirement.name), extras: parsed.requirement.extras, ...(parsed.requirement.marker ? { marker: parsed.requirement.marker } : {}) });
  }
  return edges;
}

function applies(edge: Edge, env: MarkerEnvironment, extras: ReadonlySet<string>): boolean {
  if (!edge.marker) return true;
  return ['', ...extras].some((extra) => {
    const r = evaluateMarker(edge.marker!, { ...env, extra });
    return r.ok && r.value;
  });
}

function markerEnvironment(value: unknown): MarkerEnvironment {
  const env = { ...DEFAULT_MARKER_ENV };
  if (value && typeof value === 'object') {
    for (const key of Object.keys(env) as (keyof MarkerEnvironment)[]) {
      const v = (value as Record<string, unknown>)[key];
      if (typeof v === 'string') env[key] = v;
    }
  }
  return env;
}

/** Facts for the installed distributions from the report's text; `installed` is D2. */
export function pythonFactsFromReport(reportText: string | undefined, installed: readonly Dependency[]): ComponentFacts {
  const notes: string[] = [];
  let items: ReportItem[] = [];
  let env = DEFAULT_MARKER_ENV;
  if (reportText === undefined) notes.push('pip wrote no installation report: no hashes and no dependency graph');
  else {
    const report = JSON.parse(reportText) as { install?: ReportItem[]; environment?: unknown };
    items = report.install ?? [];
    env = markerEnvironment(report.environment);
  }
  const byName = new Map(items.map((i) => [pep503(i.metadata?.name ?? ''), i] as const));
  const installedNames = new Map(installed.map((d) => [d.name, d] as const));
  // Extras asked of each distribution: by the requirements pip was given, then by the dependencies that apply.
  const extras = new Map<string, Set<string>>(items.map((i) => [pep503(i.metadata?.name ?? ''), new Set(i.requested_extras?.map(pep503) ?? [])]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, item] of byName) {
      for (const edge of edgesOf(item).filter((e) => applies(e, env, extras.get(name)!))) {
        const wanted = extras.get(edge.to);
        for (const x of edge.extras) if (wanted && !wanted.has(x)) (wanted.add(x), (changed = true));
      }
    }
  }
  const components: ComponentFact[] = installed.map((d) => {
    const item = byName.get(d.name);
    const hashes = item ? hashesOf(item) : [];
    const dependsOn = item
      ? [...new Set(edgesOf(item).filter((e) => applies(e, env, extras.get(d.name)!) && installedNames.has(e.to)).map((e) => componentKey(installedNames.get(e.to)!)))]
      : [];
    const license = item?.metadata ? pythonLicense(item.metadata) : undefined;
    return { name: d.name, ...(d.version ? { version: d.version } : {}), purl: { type: 'pypi', name: d.name, ...(d.version ? { version: d.version } : {}) }, hashes, ...(hashes.length ? { hashSource: 'pip install report (archive hash)' } : {}), ...(license ? { license } : {}), dependsOn };
  });
  const unhashed = components.filter((c) => c.hashes.length === 0).map((c) => c.name);
  if (reportText !== undefined && unhashed.length) notes.push(`pip reported no archive hash for ${unhashed.join(', ')}`);
  const direct = items.filter((i) => i.requested).map((i) => installedNames.get(pep503(i.metadata?.name ?? ''))).filter((d): d is Dependency => d !== undefined);
  return { components, ...(direct.length ? { direct: direct.map(componentKey) } : {}), notes };
}

export async function pythonComponentFacts(ctx: AuditContext, installed: readonly Dependency[]): Promise<ComponentFacts> {
  const host = ctx.sandbox.toHost(pipReportPath(ctx));
  const text = host ? await readProjectFileIfExists(ctx.host.envDir, host) : undefined;
  return pythonFactsFromReport(text, installed);
}
