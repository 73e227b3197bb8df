/**
 * The environment of every go command envproof runs: the module proxy as this machine has it, the pinned
 * toolchain only (GOTOOLCHAIN=local: a go.mod asking for a newer Go is an error, not a download), go.mod updated as
 * resolution needs (-mod=mod), and a module cache and GOPATH private to the audit, in its environment directory
 * (so D2 is resolved from nothing). The build cache (GOCACHE) is the audit's own too, seeded with a trusted build of
 * the standard library (std-cache.ts). GOENV=off: no user's go env file changes any of it.
 */
import path from 'node:path';
import type { Registry } from '../registry.js';

/**
 * The module proxy: ENVPROOF_REGISTRY_GO (one proxy URL, as the other ecosystems' ENVPROOF_REGISTRY_*), else the
 * GOPROXY list of this machine's environment, else the go command's default.
 */
export function goProxy(): string {
  return process.env.ENVPROOF_REGISTRY_GO || process.env.GOPROXY || 'https://proxy.golang.org,direct';
}

/** The first proxy URL of GOPROXY, without a trailing slash (the toolchain download and reachability probes use it). */
export function proxyBaseUrl(): string {
  const first = goProxy()
    .split(/[,|]/)
    .map((p) => p.trim())
    .find((p) => /^https?:\/\//.test(p));
  return (first ?? 'https://proxy.golang.org').replace(/\/+$/, '');
}

/** The registry failures are measured against: the first proxy of GOPROXY. */
export const GO_PROXY: Registry = { variable: 'ENVPROOF_REGISTRY_GO', fallback: proxyBaseUrl() };

/**
 * The checksum database. sum.golang.org is asked through the proxy (the go command's default: a proxy that
 * serves `/sumdb/sum.golang.org/supported` relays it), so a machine that reaches only the proxy still checks
 * every module it downloads. GONOSUMDB etc. pass through from this machine's environment for private modules.
 */
function sumdbEnv(): Record<string, string> {
  const out: Record<string, string> = { GOSUMDB: process.env.GOSUMDB || 'sum.golang.org' };
  for (const v of ['GONOSUMDB', 'GOPRIVATE', 'GONOPROXY', 'GOINSECURE'] as const) if (process.env[v]) out[v] = process.env[v]!;
  return out;
}

/** The private Go directories of an audit (inside paths). */
export function goDirs(envDir: string): { modcache: string; gopath: string; cache: string; bin: string } {
  const root = path.posix.join(envDir, 'go');
  return { modcache: path.posix.join(root, 'mod'), gopath: path.posix.join(root, 'path'), cache: path.posix.join(root, 'build'), bin: path.posix.join(envDir, 'bin') };
}

export function goEnv(envDir: string): Record<string, string> {
  const dirs = goDirs(envDir);
  return {
    GOFLAGS: '-mod=mod -modcacherw -buildvcs=false',
    GOTOOLCHAIN: 'local',
    GOPROXY: goProxy(),
    ...sumdbEnv(),
    GOMODCACHE: dirs.modcache,
    GOPATH: dirs.gopath,
    GOCACHE: dirs.cache,
    GOENV: 'off',
    GOTELEMETRY: 'off',
  };
}
