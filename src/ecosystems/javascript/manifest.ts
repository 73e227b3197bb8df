import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import type { DeclaredResult, Dependency, SkippedEntry } from '../../core/types.js';
import { exactVersion, isValidPackageName, parseAlias } from './names.js';
import { ownPackageNames } from './own.js';
import { objectField, readPackageJson, type PackageJson } from './package-json.js';

export const MANIFEST = 'package.json';

/** Groups that npm installs (some of them) but that are not declarations of what the program needs: never D1. */
export const OTHER_GROUPS = ['devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

interface GroupEntries {
  deps: Dependency[];
  skipped: SkippedEntry[];
}

/**
 * One `name: spec` map. The key is the name node_modules/ and require() see (for `npm:` aliases, the
 * alias); the raw spec — range, alias, path, git, tarball or workspace — travels in `id`.
 */
function readGroup(group: Record<string, unknown>, source: string): GroupEntries {
  const out: GroupEntries = { deps: [], skipped: [] };
  for (const [name, spec] of Object.entries(group)) {
    const raw = `"${name}": ${JSON.stringify(spec)}`;
    if (typeof spec !== 'string') {
      out.skipped.push({ raw, reason: 'unsupported-syntax', source, detail: 'the version spec is not a string' });
      continue;
    }
    if (!isValidPackageName(name)) {
      out.skipped.push({ raw, reason: 'invalid-name', source, detail: `"${name}" is not a valid npm package name` });
      continue;
    }
    const alias = parseAlias(spec);
    if (alias && !isValidPackageName(alias.realName)) {
      out.skipped.push({ raw, reason: 'invalid-name', source, detail: `alias target "${alias.realName}" is not a valid npm package name` });
      continue;
    }
    const version = exactVersion(alias ? alias.range : spec);
    out.deps.push({ name, ...(version ? { version } : {}), id: spec, source });
  }
  return out;
}

/** bundleDependencies is a list of names, or `true` for all of `dependencies`. */
function bundled(pkg: PackageJson, source: string): GroupEntries {
  const key = 'bundleDependencies' in pkg ? 'bundleDependencies' : 'bundledDependencies';
  const value = pkg[key];
  const names = value === true ? Object.keys(objectField(pkg, 'dependencies') ?? {}) : Array.isArray(value) ? value : [];
  const out: GroupEntries = { deps: [], skipped: [] };
  for (const name of names) {
    if (typeof name === 'string' && isValidPackageName(name)) out.deps.push({ name, source: `${source} ${key}` });
    else out.skipped.push({ raw: JSON.stringify(name), reason: 'invalid-name', source: `${source} ${key}` });
  }
  return out;
}

/** D1 of an npm project: the keys of package.json `dependencies` (the paper's rule). */
export async function extractDeclared(projectDir: string): Promise<DeclaredResult> {
  const file = path.join(projectDir, MANIFEST);
  const pkg = await readPackageJson(file);
  const notes: string[] = [];
  const skipped: SkippedEntry[] = [];

  const deps = pkg.dependencies;
  if (deps !== undefined && objectField(pkg, 'dependencies') === undefined) {
    throw new EnvproofError(`${file}: "dependencies" must be an object of package names to versions, not ${Array.isArray(deps) ? 'an array' : typeof deps}`);
  }
  const declared = readGroup(objectField(pkg, 'dependencies') ?? {}, `${MANIFEST} dependencies`);
  skipped.push(...declared.skipped);

  const other: Record<string, Dependency[]> = {};
  for (const key of OTHER_GROUPS) {
    if (pkg[key] === undefined) continue;
    const group = objectField(pkg, key);
    if (!group) {
      notes.push(`"${key}" is not an object and was ignored`);
      continue;
    }
    const entries = readGroup(group, `${MANIFEST} ${key}`);
    other[key] = entries.deps;
    skipped.push(...entries.skipped);
  }
  if (pkg.bundleDependencies !== undefined || pkg.bundledDependencies !== undefined) {
    const entries = bundled(pkg, MANIFEST);
    other.bundleDependencies = entries.deps;
    skipped.push(...entries.skipped);
  }

  const declaredNames = new Set(declared.deps.map((d) => d.name));
  const alsoOptional = (other.optionalDependencies ?? []).filter((d) => declaredNames.has(d.name)).map((d) => d.name);
  if (alsoOptional.length > 0) {
    notes.push(`listed in both dependencies and optionalDependencies (counted in D1, npm treats them as optional): ${alsoOptional.join(', ')}`);
  }
  if (pkg.workspaces !== undefined) {
    notes.push('the project declares workspaces; only the top package.json is read for D1');
  }
  return { manifest: MANIFEST, declared: declared.deps, other, skipped, notes, own: await ownPackageNames(path.resolve(projectDir), pkg) };
}
