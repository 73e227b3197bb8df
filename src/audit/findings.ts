/**
 * Findings: the gaps package by package, each with the manifest line it concerns and the advice for it. Where the
 * ecosystem reads static imports, phantoms are split (nothing imports it: remove it; the code imports it, or it is
 * loaded by discovery, on a path the traced runs did not take: trace more), hidden dependencies too (the code
 * imports it: declare it; only other packages load it: information), and what the code imports but nothing
 * provides is a missing dependency. Imports from tests, docs and examples are never evidence of runtime use.
 */
import type { Dependency, GapSets, UntracedGapSets } from '../core/types.js';
import type { ManifestLocation, StaticImports } from '../ecosystems/outputs.js';
import { dependencyChain, missingModuleLine, siteLocation, splitSites } from './import-sites.js';
import type { Finding, FindingKind } from './report.js';

export type IgnoreLists = Partial<Record<FindingKind, readonly string[]>>;

export interface FindingInput {
  manifest: string;
  declared: readonly Dependency[];
  installed: readonly Dependency[];
  traced: readonly Dependency[];
  /** The D3-based gaps are null when no traced command started. */
  gaps: GapSets | UntracedGapSets;
  /** Declarations that do not pin one version, each with the version it resolved to (src/audit/resolved-version.ts). */
  unpinned: readonly { name: string; version?: string }[];
  locations: Record<string, ManifestLocation>;
  staticImports?: StaticImports;
  /** Name → the names it depends on (the package manager's graph): the chain of a transitive hidden dependency. */
  graph?: ReadonlyMap<string, readonly string[]>;
  /** What the traced commands that failed printed: the error line of a missing module. */
  failedOutputs?: readonly string[];
  ignore?: IgnoreLists;
  /** The version a declaration of `name` resolves to, where D2 may hold it at several (npm: the top-level copy). */
  resolvedVersion?: (name: string) => string | undefined;
  /** Names declared outside D1 in a group the install includes (npm devDependencies), with the group. */
  declaredElsewhere?: Record<string, string>;
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
  const { runtime: sites, development } = splitSites(input.staticImports.imports[name]);
  const dev = development.length ? { developmentImports: development } : {};
  const discovery = input.staticImports.discovered?.[name];
  if (!sites.length && discovery) {
    return { ...base, phantom: 'discovered', ...dev, discovery, advice: `not imported, loaded by discovery (${discovery.rule}, ${discovery.evidence}): keep it, it is not used on the traced path` };
  }
  if (!sites.length && development.length) {
    const what = input.staticImports.developmentAdvice ?? 'declare it as a development dependency instead';
    return { ...base, phantom: 'unused', ...dev, advice: `declared in ${input.manifest} and never loaded; only development code imports it (${development.slice(0, 3).join(', ')}): ${what}` };
  }
  if (!sites.length) {
    return { ...base, phantom: 'unused', advice: `declared in ${input.manifest}, never loaded, and nothing in the code imports it: remove it (envproof fix --remove-phantom)` };
  }
  const constraints = input.staticImports.constrained?.imports[name];
  if (constraints) {
    const advice = `imported only under build constraints the build did not use (tags: ${constraints.join('; ')}), at ${sites.slice(0, 3).join(', ')}; the build was ${input.staticImports.constrained!.context}: keep it if those builds matter, no traced run of this build can load it`;
    return { ...base, phantom: 'not-traced', importedAt: sites, ...dev, buildConstraints: constraints, advice };
  }
  const advice = input.staticImports.notTracedAdvice ?? `the code imports it (${sites.slice(0, 3).join(', ')}) on a path the traced run did not take: ${RUN_MORE}`;
  return { ...base, phantom: 'not-traced', importedAt: sites, ...dev, advice };
}

/**
 * Direct when the project's runtime code imports it (located at the import); transitive when it does not and a
 * declared package brings it (with the chain), unless the manifest must list it anyway (Go); else, as without static
 * imports, unclassified: declare it.
 */
function hidden(name: string, version: string | undefined, input: FindingInput): Omit<Finding, 'kind' | 'name'> {
  const loaded = `loaded at run time${version ? ` (${version})` : ''} but not declared in ${input.manifest}`;
  const base = { ...(version ? { version } : {}) };
  const { runtime: sites, development } = splitSites(input.staticImports?.imports[name]);
  const dev = development.length ? { developmentImports: development } : {};
  if (sites.length) {
    return { ...base, hidden: 'direct', location: siteLocation(sites[0]!), importedAt: sites, ...dev, advice: `${loaded}, and the code imports it (${sites.slice(0, 3).join(', ')}): declare it (envproof fix)` };
  }
  const via = input.staticImports && input.graph && dependencyChain(name, input.declared.map((d) => d.name), input.graph);
  const unlisted = input.staticImports?.unlistedAdvice;
  if (via && unlisted) return { ...base, via, location: { file: input.manifest }, ...dev, advice: `${loaded}, through ${via.join(' → ')}; ${unlisted}` };
  if (via) {
    return { ...base, hidden: 'transitive', via, location: { file: input.manifest }, ...dev, advice: `${loaded}; only other packages load it (${via.join(' → ')}): declare it only if you import it` };
  }
  return { ...base, location: { file: input.manifest }, ...dev, advice: `${loaded}: declare it (envproof fix)` };
}

/** Modules the code imports that no installed package provides; development code's apart, never failing. */
function missing(input: FindingInput): [string, Omit<Finding, 'kind' | 'name'>][] {
  return Object.entries(input.staticImports?.unresolved ?? {}).map(([module, all]) => {
    const { runtime: sites, development } = splitSites(all);
    const dev = development.length ? { developmentImports: development } : {};
    if (!sites.length) return [module, { location: siteLocation(development[0]!), ...dev, advice: `only development code imports it (${development.slice(0, 3).join(', ')}) and no installed package provides it: a development dependency, not a runtime one` }];
    const runError = missingModuleLine(input.failedOutputs ?? [], module);
    const failed = runError ? `; the traced run failed on it: ${runError}` : '';
    return [module, { location: siteLocation(sites[0]!), importedAt: sites, ...dev, ...(runError ? { runError } : {}), advice: `the code imports it (${sites.slice(0, 3).join(', ')}) but no installed package provides it${failed}: declare the package that provides it in ${input.manifest}` }];
  });
}

export function buildFindings(input: FindingInput): Finding[] {
  const findings: Finding[] = [];
  const add = (kind: FindingKind, name: string, rest: Omit<Finding, 'kind' | 'name'>) => {
    const ignored = input.ignore?.[kind]?.includes(name);
    findings.push({ kind, name, ...rest, ...(ignored ? { ignored: true } : {}) });
  };
  for (const name of input.gaps.phantom ?? []) add('phantom', name, phantom(name, input));
  for (const name of input.gaps.hidden ?? []) add('hidden', name, hidden(name, input.resolvedVersion?.(name) ?? versionOf(name, input.installed, input.traced), input));
  for (const [name, rest] of missing(input)) add('missing', name, rest);
  for (const { name, version } of input.unpinned) {
    const location = input.locations[name];
    add('unpinned', name, {
      ...(version ? { version } : {}),
      ...(location ? { location } : {}),
      advice: `declared without one exact version${version ? `; ${version} was installed: pin it (envproof fix --pin)` : ''}`,
    });
  }
  for (const name of input.gaps.bloat ?? []) add('bloat', name, { advice: 'installed but never loaded by the traced run' });
  for (const name of input.gaps.transitive) {
    const group = input.declaredElsewhere?.[name];
    if (!group) add('transitive', name, { advice: 'installed but not declared (pulled in by another package)' });
    else add('transitive', name, { declaredIn: group, advice: `declared in ${group}, outside D1; installed because the install includes that group` });
  }
  return findings;
}

/**
 * The `--fail-on` kind a finding counts for: a transitive hidden dependency is `hidden-transitive`; a missing
 * module only development code imports counts for none.
 */
export function failOnKind(f: Finding): string | undefined {
  if (f.kind === 'hidden' && f.hidden === 'transitive') return 'hidden-transitive';
  if (f.kind === 'missing' && !f.importedAt) return undefined;
  return f.kind;
}

/** The kinds among `failOn` that have a finding not ignored, plus `run` when a traced command failed. */
export function failingKinds(findings: readonly Finding[], runsSucceeded: boolean, failOn: readonly string[]): string[] {
  return failOn.filter((k) => (k === 'run' ? !runsSucceeded : findings.some((f) => failOnKind(f) === k && !f.ignored)));
}
