/**
 * pyproject.toml: PEP 621 `[project].dependencies`, else the requirements files setuptools' dynamic
 * metadata names, else Poetry's `[tool.poetry.dependencies]`. Optional dependencies, Poetry groups and
 * PEP 735 dependency groups are reported apart, never as declarations. Entries have no line numbers
 * after TOML parsing, so `source` is `<file>:<key path>`, e.g. `pyproject.toml:project.dependencies[2]`.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { EnvproofError } from '../../core/errors.js';
import { pep503 } from '../../core/names.js';
import type { Dependency, SkippedEntry } from '../../core/types.js';
import { withExtra, type MarkerEnvironment } from './markers.js';
import { parseSpecifierSet, parseVersion, specifierContains } from './pep440.js';
import { interpretNamed, interpretRequirement, markerExclusion, redactCredentials, skippedEntry, type Interpretation } from './pep508.js';
import { readManifestText } from './read-manifest.js';
import { readRequirements } from './requirements.js';

export interface PyprojectContext {
  projectDir: string;
  markerEnv: MarkerEnvironment;
}

export interface PyprojectResult {
  declared: Dependency[];
  other: Record<string, Dependency[]>;
  skipped: SkippedEntry[];
  notes: string[];
}

type Table = Record<string, unknown>;

function asTable(value: unknown): Table | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) ? (value as Table) : undefined;
}

function parseDocument(text: string, label: string): Table {
  try {
    return parseToml(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw new EnvproofError(`${label} is not valid TOML: ${reason} at line ${err.line}, column ${err.column}`, `fix the TOML syntax in ${label}`);
    }
    throw err;
  }
}

class Collector {
  readonly result: PyprojectResult = { declared: [], other: {}, skipped: [], notes: [] };

  add(interpretation: Interpretation, group?: string): void {
    if (interpretation.kind === 'skipped') {
      this.result.skipped.push(interpretation.entry);
    } else if (group === undefined) {
      this.result.declared.push(interpretation.dependency);
    } else {
      (this.result.other[group] ??= []).push(interpretation.dependency);
    }
  }
}

function stringList(value: unknown, label: string, key: string): unknown[] {
  if (!Array.isArray(value)) throw new EnvproofError(`${label}: ${key} must be an array of requirement strings`, `see PEP 621 for the format of ${key}`);
  return value;
}

function pep508List(items: unknown[], keyPath: string, label: string, env: MarkerEnvironment, out: Collector, group?: string): void {
  items.forEach((item, i) => {
    const source = `${label}:${keyPath}[${i}]`;
    out.add(
      typeof item === 'string'
        ? interpretRequirement(item, source, env)
        : { kind: 'skipped', entry: skippedEntry(JSON.stringify(item), 'unsupported-syntax', source, 'not a requirement string') },
      group,
    );
  });
}

/**
 * Poetry's version constraints as PEP 440 alternatives (`||` separates them): `^1.2` is `>=1.2,<2.0`,
 * `~1.2` is `>=1.2,<1.3`, a bare version is `==`. Undefined when it cannot be read.
 */
export function poetryConstraint(text: string): string[] | undefined {
  const alternatives: string[] = [];
  for (const alternative of text.split('||')) {
    const clauses: string[] = [];
    const parts = alternative.trim().match(/(\^|~=|~|===|==|!=|>=|<=|>|<|=)?\s*[^\s,<>=!~^][^\s,]*/g) ?? [];
    for (const part of parts) {
      const m = /^(\^|~=|~|===|==|!=|>=|<=|>|<|=)?\s*(.+)$/.exec(part)!;
      const op = m[1] ?? '';
      const version = m[2]!;
      if (version === '*') continue;
      if (op === '^' || op === '~') {
        const release = parseVersion(version)?.release;
        if (!release) return undefined;
        // `^` keeps the leftmost non-zero component, `~` the minor version (or the major when only it is given).
        const keep = op === '^' ? Math.max(release.findIndex((n) => n !== 0), 0) : Math.min(1, release.length - 1);
        const upper = [...release.slice(0, keep), release[keep]! + 1];
        clauses.push(`>=${version}`, `<${upper.join('.')}`);
      } else {
        clauses.push(`${op === '' || op === '=' ? '==' : op}${version}`);
      }
    }
    if (!parseSpecifierSet(clauses.join(','))) return undefined;
    alternatives.push(clauses.join(','));
  }
  return alternatives;
}

function poetryAllows(constraint: string, version: string): boolean | undefined {
  const alternatives = poetryConstraint(constraint);
  const candidate = parseVersion(version);
  if (!alternatives || !candidate) return undefined;
  return alternatives.some((alt) => parseSpecifierSet(alt)!.every((s) => specifierContains(s, candidate, version)));
}

function poetryLocation(spec: Table): string | undefined {
  if (typeof spec['git'] === 'string') return spec['git'].startsWith('git+') ? spec['git'] : `git+${spec['git']}`;
  for (const key of ['path', 'url', 'file'] as const) if (typeof spec[key] === 'string') return spec[key];
  return undefined;
}

interface PoetrySection {
  table: Table;
  keyPath: string;
  /** Where entries go: undefined for the main dependencies, else a group name. */
  group?: string;
}

class PoetryReader {
  constructor(
    private readonly label: string,
    private readonly env: MarkerEnvironment,
    private readonly out: Collector,
    /** Optional dependency name → the extras that list it. */
    private readonly extrasOf: Map<string, string[]>,
  ) {}

  read(section: PoetrySection): void {
    for (const [key, value] of Object.entries(section.table)) {
      if (pep503(key) === 'python') continue;
      this.entry(key, value, `${this.label}:${section.keyPath}.${key}`, section.group);
    }
  }

  private entry(name: string, value: unknown, source: string, group: string | undefined): void {
    const raw = `${name} = ${JSON.stringify(value)}`;
    const candidates = (Array.isArray(value) ? value : [value]).map((v) => (typeof v === 'string' ? { version: v } : asTable(v)));
    if (candidates.some((c) => c === undefined)) {
      this.out.add({ kind: 'skipped', entry: skippedEntry(raw, 'unsupported-syntax', source, 'not a version string or table') }, group);
      return;
    }
    // Multiple-constraint dependencies: the first whose python/markers apply is the one installed.
    let verdict: Interpretation | undefined;
    for (const spec of candidates as Table[]) {
      verdict = this.applicability(raw, spec, source);
      if (verdict === undefined) {
        this.declare(name, raw, spec, source, group);
        return;
      }
    }
    if (verdict) this.out.add(verdict, group);
  }

  /** undefined when the candidate applies to the target interpreter, else why not. */
  private applicability(raw: string, spec: Table, source: string): Interpretation | undefined {
    const markers = spec['markers'];
    if (markers !== undefined && typeof markers !== 'string') return { kind: 'skipped', entry: skippedEntry(raw, 'unsupported-syntax', source, 'markers must be a string') };
    const excluded = markerExclusion(raw, markers, source, this.env);
    if (excluded) return excluded;
    const python = spec['python'];
    if (python === undefined) return undefined;
    const allows = typeof python === 'string' ? poetryAllows(python, this.env.python_full_version) : undefined;
    if (allows === undefined) return { kind: 'skipped', entry: skippedEntry(raw, 'unsupported-syntax', source, `unreadable python constraint ${JSON.stringify(python)}`) };
    return allows ? undefined : { kind: 'skipped', entry: skippedEntry(raw, 'marker-excluded', source, `python ${python}`) };
  }

  private declare(name: string, raw: string, spec: Table, source: string, group: string | undefined): void {
    const extras = Array.isArray(spec['extras']) ? `[${spec['extras'].map(String).map(pep503).sort().join(',')}]` : '';
    const location = poetryLocation(spec);
    const constraint = typeof spec['version'] === 'string' ? spec['version'].trim() : '*';
    const alternatives = location ? undefined : poetryConstraint(constraint);
    const pin = alternatives?.length === 1 && /^(==|===)[^,*]+$/.exec(alternatives[0]!) ? alternatives[0]!.replace(/^=+/, '') : undefined;
    const tail = location ? ` @ ${redactCredentials(location)}` : constraint === '*' ? '' : ` (${constraint})`;
    const id = extras || tail ? `${pep503(name)}${extras}${tail}` : undefined;
    const dependency = interpretNamed(raw, name, undefined, source, this.env, { version: pin, id });
    if (spec['optional'] === true && group === undefined) {
      const extrasListing = this.extrasOf.get(pep503(name)) ?? [];
      for (const extra of extrasListing.length ? extrasListing : ['']) this.out.add(dependency, extra ? `optional:${extra}` : 'optional');
    } else {
      this.out.add(dependency, group);
    }
  }
}

function poetryExtras(poetry: Table): Map<string, string[]> {
  const byDependency = new Map<string, string[]>();
  for (const [extra, members] of Object.entries(asTable(poetry['extras']) ?? {})) {
    if (!Array.isArray(members)) continue;
    for (const member of members) {
      if (typeof member !== 'string') continue;
      const key = pep503(member);
      byDependency.set(key, [...(byDependency.get(key) ?? []), pep503(extra)]);
    }
  }
  return byDependency;
}

/** Poetry's dependency groups, and its main dependencies when `main` (they are the fallback for `[project]`). */
function readPoetry(poetry: Table, main: boolean, label: string, env: MarkerEnvironment, out: Collector): void {
  const reader = new PoetryReader(label, env, out, poetryExtras(poetry));
  if (main) reader.read({ table: asTable(poetry['dependencies']) ?? {}, keyPath: 'tool.poetry.dependencies' });
  const legacyDev = asTable(poetry['dev-dependencies']);
  if (legacyDev) reader.read({ table: legacyDev, keyPath: 'tool.poetry.dev-dependencies', group: 'group:dev' });
  for (const [group, body] of Object.entries(asTable(poetry['group']) ?? {})) {
    const table = asTable(asTable(body)?.['dependencies']);
    if (table) reader.read({ table, keyPath: `tool.poetry.group.${group}.dependencies`, group: `group:${pep503(group)}` });
  }
}

/**
 * PEP 735 `[dependency-groups]`, each reported as `group:<name>`; `{include-group = "..."}` entries
 * are expanded in place, and a group that includes itself (directly or not) is an include cycle.
 */
function readDependencyGroups(groups: Table, label: string, env: MarkerEnvironment, out: Collector): void {
  const byName = new Map(Object.entries(groups).map(([name, items]) => [pep503(name), { name, items }]));
  const expand = (name: string, into: string, stack: string[]): void => {
    const group = byName.get(name)!;
    const items = Array.isArray(group.items) ? group.items : [];
    items.forEach((item, i) => {
      const source = `${label}:dependency-groups.${group.name}[${i}]`;
      const include = asTable(item)?.['include-group'];
      if (typeof item === 'string') {
        out.add(interpretRequirement(item, source, env), into);
      } else if (typeof include !== 'string' || !byName.has(pep503(include))) {
        out.add({ kind: 'skipped', entry: skippedEntry(JSON.stringify(item), include === undefined ? 'unsupported-syntax' : 'include-missing', source) });
      } else if (stack.includes(pep503(include))) {
        out.add({ kind: 'skipped', entry: skippedEntry(JSON.stringify(item), 'include-cycle', source, [...stack, pep503(include)].join(' -> ')) });
      } else {
        expand(pep503(include), into, [...stack, pep503(include)]);
      }
    });
  };
  for (const name of byName.keys()) expand(name, `group:${name}`, [name]);
}

/** setuptools' `dynamic = ["dependencies"]` with `[tool.setuptools.dynamic] dependencies = { file = [...] }`. */
function dynamicDependencyFiles(doc: Table): string[] {
  const files = asTable(asTable(asTable(asTable(doc['tool'])?.['setuptools'])?.['dynamic'])?.['dependencies'])?.['file'];
  if (typeof files === 'string') return [files];
  return Array.isArray(files) ? files.filter((f): f is string => typeof f === 'string') : [];
}

async function readDynamicFiles(files: string[], label: string, ctx: PyprojectContext, out: Collector): Promise<void> {
  for (const file of files) {
    const full = path.resolve(ctx.projectDir, file);
    if (!(await stat(full).catch(() => undefined))) {
      out.result.skipped.push(skippedEntry(file, 'include-missing', `${label}:tool.setuptools.dynamic.dependencies`, `${file} does not exist`));
      continue;
    }
    const r = await readRequirements(full, ctx);
    out.result.declared.push(...r.declared);
    if (r.constraints.length) (out.result.other['constraints'] ??= []).push(...r.constraints);
    out.result.skipped.push(...r.skipped);
    out.result.notes.push(...r.notes);
  }
}

export async function readPyproject(file: string, label: string, ctx: PyprojectContext): Promise<PyprojectResult> {
  const doc = parseDocument(await readManifestText(file, label, ctx.projectDir), label);
  const out = new Collector();
  const project = asTable(doc['project']);
  const poetry = asTable(asTable(doc['tool'])?.['poetry']);
  const dynamic = Array.isArray(project?.['dynamic']) && project['dynamic'].includes('dependencies');
  const hasProjectDependencies = project !== undefined && 'dependencies' in project;
  const dynamicFiles = dynamic ? dynamicDependencyFiles(doc) : [];
  const poetryMain = !hasProjectDependencies && dynamicFiles.length === 0 && asTable(poetry?.['dependencies']) !== undefined;

  if (hasProjectDependencies) {
    pep508List(stringList(project['dependencies'], label, 'project.dependencies'), 'project.dependencies', label, ctx.markerEnv, out);
  } else if (dynamicFiles.length) {
    out.result.notes.push(`${label}: dependencies are dynamic; read from ${dynamicFiles.join(', ')} as tool.setuptools.dynamic says`);
    await readDynamicFiles(dynamicFiles, label, ctx, out);
  } else if (!poetryMain) {
    out.result.notes.push(
      dynamic
        ? `${label}: dependencies are dynamic (computed by the build backend) and were not read`
        : `${label} declares no dependencies ([project].dependencies and [tool.poetry.dependencies] are absent)`,
    );
  }

  if (poetry) readPoetry(poetry, poetryMain, label, ctx.markerEnv, out);
  const groups = asTable(doc['dependency-groups']);
  if (groups) readDependencyGroups(groups, label, ctx.markerEnv, out);
  for (const [extra, items] of Object.entries(asTable(project?.['optional-dependencies']) ?? {})) {
    const key = `project.optional-dependencies.${extra}`;
    const env = withExtra(ctx.markerEnv, pep503(extra));
    pep508List(stringList(items, label, key), key, label, env, out, `optional:${pep503(extra)}`);
  }
  return out.result;
}
