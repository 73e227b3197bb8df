/**
 * Where things are in every sandbox, as paths only. A leaf module: the ecosystems ask it (Java's HOME and Maven
 * cache) while the sandbox's environment asks the ecosystem registry, so these must not live there.
 */
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';

/** Where the shared package caches appear inside isolating sandboxes (bwrap, docker, podman). */
export const CACHE_INSIDE = '/envproof/cache';
/** The system CA bundle; registries are reached through whatever CAs this machine trusts. */
export const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
export const JAVA_CA_STORE = '/etc/ssl/certs/java/cacerts';

/**
 * Host directory of the package caches shared by isolating sandboxes. It is separate from the host backend's
 * caches because the sandbox's user owns it.
 */
export function sandboxCacheDir(): string {
  return path.join(cacheRoot(), 'sandbox-cache');
}

/** HOME of programs in every sandbox: a directory of the work directory (as the program sees it). */
export function sandboxHome(workDir: string): string {
  return path.posix.join(workDir, 'home');
}
