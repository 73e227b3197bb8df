import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../helpers/cli.js';

/** Builds (or reuses, when cached) an environment with the project's own command; fails the test if it cannot. */
export function buildEnvironment(language: string): void {
  const r = runCli(['env', 'build', language], { timeoutMs: 30 * 60_000 });
  if (r.status !== 0) throw new Error(`envproof env build ${language} failed (${r.status}):\n${r.stderr}`);
}

/** Pids of host processes whose command line contains `token`. */
export function processesWith(token: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (cmdline.includes(token)) pids.push(Number(entry));
  }
  return pids;
}

/** Waits up to `ms` for every process carrying `token` to be gone; returns those still alive. */
export async function survivorsAfter(token: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = processesWith(token);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = processesWith(token);
  }
  return left;
}

/** A fingerprint of a directory tree: every path with its size, mtime and mode. */
export function treeFingerprint(dir: string): string {
  return execFileSync('sh', ['-c', `find "$1" -xdev -printf '%P %s %T@ %m\\n' | sort | sha256sum`, 'sh', dir], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * A PATH on which the named programs do not exist: a directory of symlinks to everything else of /usr/bin
 * and /usr/sbin (this machine is usr-merged, so /bin and /sbin are the same directories). Used to run envproof
 * as on a machine without, say, bubblewrap.
 */
export function pathWithout(programs: readonly string[], parent: string): string {
  const dir = mkdtempSync(path.join(parent, 'path-'));
  for (const bin of ['/usr/local/bin', '/usr/bin', '/usr/sbin']) {
    for (const name of readdirSync(bin)) {
      if (programs.includes(name) || existsSync(path.join(dir, name))) continue;
      symlinkSync(path.join(bin, name), path.join(dir, name));
    }
  }
  return dir;
}
