/**
 * Which Debian package owns a file, asked of the sandbox's own dpkg database. On merged-/usr systems a
 * file opened as /usr/lib/x/libz.so.1 may be recorded by dpkg as /lib/x/libz.so.1 (or the reverse), so
 * both forms are asked for.
 */
import type { Sandbox } from '../../sandbox/types.js';
import type { PurlParts } from '../outputs.js';

export interface DebianPackage {
  name: string;
  version?: string;
}

/** The `/usr` form of a path under a merged-/usr directory (`/lib/x` → `/usr/lib/x`); other paths unchanged. */
/** The package URL of a Debian package of the environment (bookworm, amd64). */
export function debianPurl(pkg: DebianPackage): PurlParts {
  return { type: 'deb', namespace: 'debian', name: pkg.name, ...(pkg.version ? { version: pkg.version } : {}), qualifiers: { arch: 'amd64' } };
}

export function usrMerged(p: string): string {
  return /^\/(lib|lib32|lib64|libx32|bin|sbin)\//.test(p) ? `/usr${p}` : p;
}

/** Both spellings a merged-/usr system may use for a path. */
function spellings(p: string): string[] {
  const merged = usrMerged(p);
  const unmerged = merged.replace(/^\/usr(?=\/(lib|lib32|lib64|libx32|bin|sbin)\/)/, '');
  return merged === unmerged ? [merged] : [merged, unmerged];
}

/** Parses `dpkg-query -S` output (`pkg[:arch][, pkg2]: /path`) into path → package names. */
export function parseDpkgSearch(output: string): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const line of output.split('\n')) {
    if (line.startsWith('diversion by')) continue;
    const m = /^(.+?): (\/.*)$/.exec(line);
    if (!m?.[1] || !m[2]) continue;
    owners.set(m[2], m[1].split(',').map((p) => p.trim().replace(/:[a-z0-9_-]+$/, '')));
  }
  return owners;
}

const BATCH = 500;

/** Owner of each path (keyed by its `/usr` form); paths no package owns are absent. */
export async function debianOwners(sandbox: Sandbox, paths: Iterable<string>, cwd: string): Promise<Map<string, DebianPackage>> {
  const wanted = [...new Set([...paths].map(usrMerged))];
  const queries = wanted.flatMap(spellings);
  const owners = new Map<string, string>();
  for (let i = 0; i < queries.length; i += BATCH) {
    const r = await sandbox.exec({ argv: ['dpkg-query', '-S', ...queries.slice(i, i + BATCH)], cwd, timeoutMs: 60_000, network: false });
    if (r.spawnError) return new Map(); // not a Debian system: no package attribution
    for (const [file, pkgs] of parseDpkgSearch(r.stdout)) {
      if (pkgs[0]) owners.set(usrMerged(file), pkgs[0]);
    }
  }
  const versions = await debianVersions(sandbox, new Set(owners.values()), cwd);
  const out = new Map<string, DebianPackage>();
  for (const [file, name] of owners) out.set(file, { name, version: versions.get(name) });
  return out;
}

async function debianVersions(sandbox: Sandbox, names: Set<string>, cwd: string): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  if (names.size === 0) return versions;
  const r = await sandbox.exec({
    argv: ['dpkg-query', '-W', '-f', '${Package}\t${Version}\n', ...names],
    cwd,
    timeoutMs: 60_000,
    network: false,
  });
  for (const line of r.stdout.split('\n')) {
    const [name, version] = line.split('\t');
    if (name && version) versions.set(name, version);
  }
  return versions;
}

/** The upstream part of a Debian version: no epoch, no Debian revision, no repack suffix (`1:1.2.13.dfsg-1` → `1.2.13`). */
export function debianUpstreamVersion(version: string): string {
  return version
    .replace(/^\d+:/, '')
    .replace(/-[^-]*$/, '')
    .replace(/[.+~](dfsg|ds|repack)\d*.*$/i, '');
}
