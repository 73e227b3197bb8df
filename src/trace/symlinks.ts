/**
 * Symlink resolution of paths as the sandboxed program saw them. Each component is looked up on the host
 * through `toHost` and links are followed in the inside view, so an absolute link inside a root
 * filesystem points into that root filesystem, not into the host's.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { parentOf, resolveAgainst } from './paths.js';

/** Linux gives up after 40 links in one lookup (ELOOP); so do we. */
const MAX_LINKS = 40;

/** The target of a symlink; null when the path is anything else or cannot be read. */
function linkTarget(hostPath: string): string | null {
  try {
    return lstatSync(hostPath, { throwIfNoEntry: false })?.isSymbolicLink() ? readlinkSync(hostPath) : null;
  } catch {
    return null;
  }
}

export class InsideRealpath {
  /** Resolved form of each inside path looked up so far. */
  private readonly memo = new Map<string, string>();

  constructor(private readonly toHost: (insidePath: string) => string | null) {}

  /**
   * The path with every symlink resolved, or null when the result is not visible from the host.
   * Components the host cannot see (a sandbox's private /tmp above a bound work directory) are taken
   * as plain directories; a missing last component (a file deleted since) resolves to itself.
   */
  resolve(insidePath: string): string | null {
    const real = this.lookup(insidePath, 0);
    return this.toHost(real) === null ? null : real;
  }

  private lookup(p: string, links: number): string {
    if (p === '/') return '/';
    const known = this.memo.get(p);
    if (known !== undefined) return known;
    const dir = this.lookup(parentOf(p), links);
    const candidate = resolveAgainst(dir, p.slice(p.lastIndexOf('/') + 1));
    const host = this.toHost(candidate);
    const target = host === null ? null : linkTarget(host);
    const result = target !== null && links < MAX_LINKS ? this.lookup(resolveAgainst(dir, target), links + 1) : candidate;
    this.memo.set(p, result);
    return result;
  }
}

/** The paths, plus the symlink-resolved form of each where it differs and can be resolved. */
export function withSymlinkTargets(paths: Iterable<string>, toHost: (insidePath: string) => string | null, realpath = new InsideRealpath(toHost)): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    out.add(p);
    const real = realpath.resolve(p);
    if (real !== null) out.add(real);
  }
  return out;
}

/** `withSymlinkTargets` for each program's files, sharing one resolver. */
export function programFiles(byProgram: ReadonlyMap<string, Iterable<string>>, toHost: (insidePath: string) => string | null): Map<string, Set<string>> {
  const realpath = new InsideRealpath(toHost);
  return new Map([...byProgram].map(([program, paths]) => [program, withSymlinkTargets(paths, toHost, realpath)]));
}
