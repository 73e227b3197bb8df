import path from 'node:path';
import { uniqueDependencies } from '../../core/names.js';
import type { Dependency } from '../../core/types.js';

/** One node of `npm ls --all --json --long`, reduced to what envproof keeps. */
export interface NpmTreeNode {
  /** The key under node_modules/ (an alias for `npm:` aliases): what require() sees. */
  name: string;
  version?: string;
  /** The package's own name, when it differs from `name` (aliases). */
  realName?: string;
  /** Where it lies, relative to the project directory. */
  path?: string;
  /** `file:`/`link:` and git sources: npm's resolved spec. */
  resolved?: string;
  dev?: boolean;
  optional?: boolean;
  peer?: boolean;
  /** Required but not installed (e.g. an unmet peer or a skipped optional dependency). */
  missing?: boolean;
  dependencies: NpmTreeNode[];
}

/** What the npm install learns for attribution, the SBOM and the report. */
export interface NpmInstallDetails {
  tree: NpmTreeNode;
  /** npm's own list of problems (missing, invalid, extraneous). */
  problems: string[];
  lsExitCode: number | null;
  /** Packages whose install scripts ran without review (npm's own warning). */
  unreviewedInstallScripts: string[];
}

export interface NpmTree {
  root: NpmTreeNode;
  /** npm's own list of problems (missing, invalid, extraneous), when it reported any. */
  problems: string[];
}

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function relativePath(projectDir: string, absolute: string): string {
  if (absolute === projectDir) return '.';
  return absolute.startsWith(`${projectDir}/`) ? absolute.slice(projectDir.length + 1) : path.posix.relative(projectDir, absolute);
}

function toNode(key: string, raw: Json, projectDir: string): NpmTreeNode {
  const realName = str(raw.name);
  const absolute = str(raw.path);
  const children = Object.entries(asObject(raw.dependencies) ?? {}).flatMap(([k, v]) => {
    const child = asObject(v);
    return child ? [toNode(k, child, projectDir)] : [];
  });
  const node: NpmTreeNode = { name: key, dependencies: children };
  const version = str(raw.version);
  if (version) node.version = version;
  if (realName && realName !== key) node.realName = realName;
  if (absolute) node.path = relativePath(projectDir, absolute);
  const resolved = str(raw.resolved);
  if (resolved && !/^https?:/.test(resolved)) node.resolved = resolved;
  for (const flag of ['dev', 'optional', 'peer', 'missing'] as const) {
    if (raw[flag] === true) node[flag] = true;
  }
  return node;
}

/** Parses npm ls JSON output; `projectDir` is the project as npm saw it (to make paths relative). */
export function parseNpmLs(stdout: string, projectDir: string): NpmTree {
  const raw = asObject(JSON.parse(stdout));
  if (!raw) throw new SyntaxError('npm ls did not print a JSON object');
  const problems = Array.isArray(raw.problems) ? raw.problems.filter((p): p is string => typeof p === 'string') : [];
  return { root: toNode(str(raw.name) ?? '', raw, projectDir), problems };
}

/** Every node below `node`, depth first. */
export function* walk(node: NpmTreeNode): Generator<NpmTreeNode> {
  for (const child of node.dependencies) {
    yield child;
    yield* walk(child);
  }
}

/**
 * D2: every installed node of the tree (not the root) as name@version, de-duplicated. Nested copies of
 * another version are distinct entries; missing nodes are not installed and are left out. With `omitDev`, also the
 * nodes npm marks dev (needed only by devDependencies): the production-only D2 of `npm ls --all --omit=dev`.
 */
export function installedFromTree(tree: NpmTree, opts: { omitDev?: boolean } = {}): Dependency[] {
  const deps: Dependency[] = [];
  for (const node of walk(tree.root)) {
    if (node.missing || !node.version || (opts.omitDev && node.dev)) continue;
    deps.push({
      name: node.name,
      version: node.version,
      ...(node.realName ? { id: `npm:${node.realName}@${node.version}` } : {}),
      ...(node.path ? { source: node.path } : {}),
    });
  }
  return uniqueDependencies(deps);
}

/**
 * The version a declaration of the root resolves to: the copy in the project's own node_modules/ (what require()
 * from the project finds), never one nested under another package. `npm ls` lists a hoisted package under the
 * package that needs it, so the node is found by its path; a direct dependency without one by its place in the tree.
 */
export function topLevelVersion(root: NpmTreeNode, name: string): string | undefined {
  const at = `node_modules/${name}`;
  for (const node of walk(root)) if (node.path === at && !node.missing && node.version) return node.version;
  return root.dependencies.find((c) => c.name === name && !c.missing && !c.path)?.version;
}
