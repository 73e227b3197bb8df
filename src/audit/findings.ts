/**
 * Findings: the gaps package by package, each with the manifest line it concerns and the advice for it. Phantoms
 * are split where the ecosystem reads static imports: nothing imports it (remove it), or the code imports it on a
 * path the traced runs did not take (trace more entry points).
 */
import type { Dependency, GapSets, UntracedGapSets } from '../core/types.js';
import type { ManifestLocation, StaticImports } from '../ecosystems/outputs.js';
import type { Finding, FindingKind } from './report.js';

export type IgnoreLists = Partial<Record<FindingKind, readonly string[]>>;

export interface FindingInput {
  manifest: string;
  declared: readonly Dependency[];
  installed: readonly Dependency[];
  traced: readonly Dependency[];
  /** The D3-based gaps are null when no traced command started. */
  gaps: GapSets | UntracedGapSets;
  /** Declared names that do not pin one version. */
  unpinned: readonly string[];
  locations: Record<string, ManifestLocation>;
  staticImports?: StaticImports;
  ignore?: IgnoreLists;
}

const RUN_MORE = 'trace the entry points that reach it: add their commands with --run, or to "run" in envproof.config.json';

function versionOf(name: string, ...layers: (readonly Dependency[])[]): string | undefined {
  for (const layer of layers) {
    const found = layer.find((d) => d.name === name && d.version);
    if (found) return found.version;
  }
  return undefined;
}

function phantom(name: string, input: FindingInput): Omit<Finding, 'kind' | 'name'> {
  const location = input.locations[name];
  const base = { ...(location ? { location } : {}) };
  if (!input.staticImports) {
    return { ...base, advice: `declared in ${input.manifest} but never loaded by the traced run: remove it if nothing needs it, or ${RUN_MORE}` };
  }
  const sites = input.staticImports.imports[name];
  if (!sites) {
    return { ...base, phantom: 'unused', advice: `declared in ${input.manifest}, never loaded, and nothing in the code imports it: remove it (envproof fix --remove-phantom)` };
  }
  const where = sites.length ? ` (${sites.slice(0, 3).join(', ')})` : '';
  const constraints = input.staticImports.constrained?.imports[name];
  if (constraints) {
    const advice = `imported only under build constraints the build did not use (tags: ${constraints.join('; ')}), at ${sites.slice(0, 3).join(', ')}; the build was ${input.staticImports.constrained!.context}: keep it if those builds matter, no traced run of this build can load it`;
    return { ...base, phantom: 'not-traced', importedAt: sites, buildConstraints: constraints, advice };
  }
  const advice = input.staticImports.notTracedAdvice ?? `the code imports it${where} on a path the traced run did not take: ${RUN_MORE}`;
  return { ...base, phantom: 'not-traced', importedAt: sites, advice };
}

export function buildFindings(input: FindingInput): Finding[] {
  const findings: Finding[] = [];
  const add = (kind: FindingKind, name: string, rest: Omit<Finding, 'kind' | 'name'>) => {
    const ignored = input.ignore?.[kind]?.includes(name);
    findings.push({ kind, name, ...rest, ...(ignored ? { ignored: true } : {}) });
  };
  for (const name of input.gaps.phantom ?? []) add('phantom', name, phantom(name, input));
  for (const name of input.gaps.hidden ?? []) {
    const version = versionOf(name, input.installed, input.traced);
    add('hidden', name, {
      ...(version ? { version } : {}),
      location: { file: input.manifest },
      advice: `loaded at run time${version ? ` (${version})` : ''} but not declared in ${input.manifest}: declare it (envproof fix)`,
    });
  }
  for (const name of input.unpinned) {
    const version = versionOf(name, input.installed);
    const location = input.locations[name];
    add('unpinned', name, {
      ...(version ? { version } : {}),
      ...(location ? { location } : {}),
      advice: `declared without one exact version${version ? `; ${version} was installed: pin it (envproof fix --pin)` : ''}`,
    });
  }
  for (const name of input.gaps.bloat ?? []) add('bloat', name, { advice: 'installed but never loaded by the traced run' });
  for (const name of input.gaps.transitive) add('transitive', name, { advice: 'installed but not declared (pulled in by another package)' });
  return findings;
}

/** The kinds among `failOn` that have a finding not ignored, plus `run` when a traced command failed. */
export function failingKinds(findings: readonly Finding[], runsSucceeded: boolean, failOn: readonly string[]): string[] {
  return failOn.filter((k) => (k === 'run' ? !runsSucceeded : findings.some((f) => f.kind === k && !f.ignored)));
}
