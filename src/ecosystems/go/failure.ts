/**
 * What the go command's output says went wrong (pure, but for the proxy probe that tells a module the proxy does
 * not know from a version it does not have).
 */
import type { InstallFailureClass } from '../types.js';
import { proxyBaseUrl } from './go-env.js';

/** `go: go.mod requires go >= 1.27 (running go 1.26.8; GOTOOLCHAIN=local)`, or the same of a dependency. */
const TOOLCHAIN_TOO_OLD = /^go: (\S+) requires go >= (\S+) \(running go (\S+); GOTOOLCHAIN=local\)/m;
/** The proxy answered that it has no such module or version (404/410 from proxy.golang.org, 403 from some mirrors). */
const NOT_FOUND = /reading (https?:\/\/\S+?\/@v\/\S+): (?:404 Not Found|410 Gone|403 Forbidden)/;
const NETWORK = /dial tcp|no such host|connection refused|i\/o timeout|TLS handshake timeout|network is unreachable|connection reset by peer/;

export interface GoFailure {
  failureClass: InstallFailureClass | 'build-configuration';
  /** A sentence for the report. */
  summary: string;
}

export function toolchainTooOld(output: string): { what: string; needs: string; running: string } | undefined {
  const m = TOOLCHAIN_TOO_OLD.exec(output);
  return m ? { what: m[1]!, needs: m[2]!, running: m[3]! } : undefined;
}

/** The `module@version` a not-found answer was about, from the URL the go command read. */
export function notFoundModule(output: string): { module: string; url: string } | undefined {
  const m = NOT_FOUND.exec(output);
  if (!m) return undefined;
  const rest = m[1]!.slice(proxyBaseUrl().length + 1);
  const at = rest.indexOf('/@v/');
  return at > 0 ? { module: rest.slice(0, at), url: m[1]! } : { module: rest, url: m[1]! };
}

/** The endpoints (URLs, `host:port`, hosts) the go command's connection errors name. */
export function goFailingEndpoints(output: string): string[] {
  return [
    ...[...output.matchAll(/Get "([^"]+)": (?:dial tcp|net\/http|read tcp|remote error)/g)].map((m) => m[1]!),
    ...[...output.matchAll(/dial tcp: lookup (\S+?)(?: on \S+)?: no such host/g)].map((m) => m[1]!),
  ];
}

/** The first lines of the go command's own error messages (`go: ...`, `file.go:1:2: ...`). */
export function goErrorSummary(output: string, lines = 4): string {
  return output
    .split('\n')
    .filter((l) => /^(go: |\S+\.go:\d+|\tserver response:|# )/.test(l) && !/^go: (downloading|finding|extracting) /.test(l))
    .slice(0, lines)
    .join('\n');
}

/** The class of a failed `go mod download` / `go list` / `go build` (before probing the proxy). */
export function classifyGoFailure(output: string): InstallFailureClass | 'build-configuration' {
  if (toolchainTooOld(output)) return 'build-configuration';
  if (/^go: errors parsing go\.mod/m.test(output)) return 'build-configuration';
  if (NOT_FOUND.test(output)) return 'no-such-package';
  if (/invalid version: unknown revision|no matching versions for query/.test(output)) return 'no-matching-version';
  if (/checksum mismatch|SECURITY ERROR|verifying \S+: /.test(output)) return 'fetch-failure';
  if (NETWORK.test(output)) return 'network';
  return 'other';
}

/** Whether the proxy lists any version of `module`: then a not-found version is a wrong version, not a wrong module. */
export async function proxyListsVersions(module: string): Promise<boolean> {
  const escaped = module.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
  try {
    const res = await fetch(`${proxyBaseUrl()}/${escaped}/@v/list`, { signal: AbortSignal.timeout(10_000) });
    return res.ok && (await res.text()).trim() !== '';
  } catch {
    return false;
  }
}
