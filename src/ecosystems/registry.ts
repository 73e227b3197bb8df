/**
 * The package registry each ecosystem installs from, and whose fault a failed download is.
 *
 * Only a registry that cannot be reached is infrastructure (retried, never counted against the agent). A download
 * the project asked for itself (a tarball URL, its own repository or index, a postinstall fetch) that fails, or an
 * install that hangs, is the project's failure. The wording of an error ("Connection refused", ENOTFOUND) does not
 * tell the two apart; evidence about the registry host does: the endpoint the error names, or a probe of the
 * registry made when the error names none.
 */
import type { InstallFailureClass } from './types.js';

export interface Registry {
  /** Variable of envproof's own environment that points installs at another registry or mirror. */
  variable: string;
  /** The public registry used when the variable is not set. */
  fallback: string;
}

/** The registry's URL: the configured one, else the public one. */
export function registryUrl(registry: Registry): string {
  return process.env[registry.variable] || registry.fallback;
}

/** The registry's URL when one is configured (installs then point at it), else undefined (the tool's default). */
export function configuredRegistry(registry: Registry): string | undefined {
  return process.env[registry.variable] || undefined;
}

interface Endpoint {
  host: string;
  /** Absent when the error names only the host (e.g. a name that did not resolve). */
  port?: string;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** A URL, `host:port` or bare host as named in an error message. */
function endpointOf(text: string): Endpoint | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      return { host: url.hostname.toLowerCase().replace(/^\[|\]$/g, ''), port: url.port || DEFAULT_PORTS[url.protocol] };
    } catch {
      return undefined;
    }
  }
  const m = /^\[?([^\]\s]+?)\]?(?::(\d+))?$/.exec(text.trim());
  return m ? { host: m[1]!.toLowerCase(), ...(m[2] ? { port: m[2] } : {}) } : undefined;
}

function sameEndpoint(named: Endpoint, registry: Endpoint): boolean {
  return named.host === registry.host && (named.port === undefined || named.port === registry.port);
}

/** Whether the registry answers HTTP at all (any status counts: it is there). */
export async function registryReachable(url: string, timeoutMs = 10_000): Promise<boolean> {
  try {
    const res = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/**
 * Class of an install whose output shows a failed connection. `failing` are the endpoints (URLs, `host:port`,
 * hosts) the tool's error names. One of them is the registry: the registry failed. They name only other hosts: the
 * project's own download failed. They name nothing: a probe of the registry decides.
 */
export async function downloadFailureClass(registry: Registry, failing: readonly string[]): Promise<InstallFailureClass> {
  const url = registryUrl(registry);
  const own = endpointOf(url);
  const named = failing.map(endpointOf).filter((e): e is Endpoint => e !== undefined);
  if (own && named.some((e) => sameEndpoint(e, own))) return 'registry-unreachable';
  if (named.length > 0) return 'fetch-failure';
  return (await registryReachable(url)) ? 'fetch-failure' : 'registry-unreachable';
}

/** Class of an install that ran out of time: the registry's fault only when it does not answer now. */
export async function timeoutFailureClass(registry: Registry): Promise<InstallFailureClass> {
  return (await registryReachable(registryUrl(registry))) ? 'timeout' : 'registry-unreachable';
}
