/**
 * SBOM facts of an npm project: each installed package's `integrity` (the registry's Subresource Integrity hash of
 * its tarball) from npm's lockfile of node_modules (`node_modules/.package-lock.json`, which npm writes on every
 * install), and the dependency graph of `npm ls --all`.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { readIfExists } from '../../core/fs.js';
import { spdxExpression } from '../licenses.js';
import { componentKey, type ComponentFact, type ComponentFacts, type ComponentHash, type HashAlgorithm } from '../outputs.js';
import type { AuditContext, InstallResult } from '../types.js';
import { walk, type NpmInstallDetails, type NpmTreeNode } from './npm-tree.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';

const ALGORITHMS: Record<string, HashAlgorithm> = { sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

/** `sha512-<base64> sha1-<base64>` → hex hashes. */
export function integrityHashes(integrity: string | undefined): ComponentHash[] {
  return (integrity ?? '')
    .split(/\s+/)
    .map((part) => /^(sha\d+)-([A-Za-z0-9+/=]+)$/.exec(part))
    .filter((m): m is RegExpExecArray => m !== null && ALGORITHMS[m[1]!] !== undefined)
    .map((m) => ({ algorithm: ALGORITHMS[m[1]!]!, value: Buffer.from(m[2]!, 'base64').toString('hex') }));
}

function npmPurl(node: NpmTreeNode): ComponentFact['purl'] {
  const real = node.realName ?? node.name;
  const scoped = /^(@[^/]+)\/(.+)$/.exec(real);
  return { type: 'npm', ...(scoped ? { namespace: scoped[1]!, name: scoped[2]! } : { name: real }), ...(node.version ? { version: node.version } : {}) };
}

export function npmFacts(root: NpmTreeNode, lock: Record<string, { integrity?: string }>, licenses: ReadonlyMap<string, string> = new Map()): ComponentFacts {
  const byKey = new Map<string, ComponentFact>();
  const key = (n: NpmTreeNode) => componentKey({ name: n.name, ...(n.version ? { version: n.version } : {}) });
  for (const node of walk(root)) {
    if (node.missing || !node.version) continue;
    const fact = byKey.get(key(node)) ?? { name: node.name, version: node.version, purl: npmPurl(node), hashes: [], dependsOn: [] };
    if (!fact.hashes.length && node.path) {
      fact.hashes = integrityHashes(lock[node.path]?.integrity);
      if (fact.hashes.length) fact.hashSource = 'npm lockfile integrity';
    }
    const license = node.path ? licenses.get(node.path) : undefined;
    if (license && !fact.license) fact.license = license;
    for (const child of node.dependencies) if (!child.missing && child.version && !fact.dependsOn.includes(key(child))) fact.dependsOn.push(key(child));
    byKey.set(key(node), fact);
  }
  const components = [...byKey.values()];
  const unhashed = components.filter((c) => !c.hashes.length).map((c) => c.name);
  return {
    components,
    direct: root.dependencies.filter((c) => !c.missing && c.version).map(key),
    notes: unhashed.length ? [`npm's lockfile gives no integrity for ${unhashed.join(', ')} (links, git or local packages)`] : [],
  };
}

/** Each installed package's `license` from its own package.json, by its path under the project. */
async function installedLicenses(projectDir: string, nodes: Iterable<NpmTreeNode>): Promise<Map<string, string>> {
  const licenses = new Map<string, string>();
  const root = await realpath(projectDir);
  for (const node of nodes) {
    if (!node.path || path.isAbsolute(node.path) || node.path.split('/').includes('..')) continue;
    // A linked package (a workspace, a file: dependency) may lead out of the project: not read.
    const file = await realpath(path.join(projectDir, node.path, 'package.json')).catch(() => undefined);
    if (!file?.startsWith(root + path.sep)) continue;
    let declared: unknown;
    try {
      declared = (JSON.parse((await readIfExists(file)) ?? '{}') as { license?: unknown }).license;
    } catch {
      continue; // a package.json that is not JSON declares nothing
    }
    const license = typeof declared === 'string' ? spdxExpression(declared) : undefined;
    if (license) licenses.set(node.path, license);
  }
  return licenses;
}

export async function npmComponentFacts(ctx: AuditContext, install: InstallResult<NpmInstallDetails>): Promise<ComponentFacts> {
  const root = install.details.tree;
  const text = await readProjectFileIfExists(ctx.host.projectDir, 'node_modules/.package-lock.json');
  const lock = text ? ((JSON.parse(text) as { packages?: Record<string, { integrity?: string }> }).packages ?? {}) : {};
  return npmFacts(root, lock, await installedLicenses(ctx.host.projectDir, walk(root)));
}
