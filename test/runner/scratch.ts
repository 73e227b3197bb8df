/**
 * The test files' TMPDIR: a tmpfs of the runner's own, mounted as root. envproof's work directories, repro's install
 * templates and the tests' temporary projects all live under TMPDIR. On the disk's ext4, creating and deleting their
 * thousands of files again and again (a Go repro run copies a 200 MB build cache) made a third of the suite's CPU
 * time system time, much of it ext4 looking for inodes that were not recently deleted; on a tmpfs the same Go repro
 * takes half the time. Pages are taken only as files are written; the size is a cap.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from '../../src/sandbox/lock.js';

const PREFIX = 'envproof-tests-';

function unmount(dir: string): void {
  spawnSync('umount', ['--lazy', dir], { stdio: 'ignore' });
  try {
    rmdirSync(dir);
  } catch {
    /* still busy: left for the next run's sweep */
  }
}

/** The scratch file systems of runners that are gone (killed mid-run). */
function sweep(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = Number(name.startsWith(PREFIX) ? name.slice(PREFIX.length) : NaN);
    if (pid > 0 && pid !== process.pid && !isAlive(pid)) unmount(path.join(parent, name));
  }
}

export interface Scratch {
  dir: string;
  release(): void;
}

/** Mounts the tmpfs under the machine's temporary directory; undefined where it cannot (not root, no tmpfs). */
export function mountScratch(): Scratch | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const parent = os.tmpdir();
  sweep(parent);
  const dir = path.join(parent, `${PREFIX}${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=50%,mode=1777', 'envproof-tests', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    if (existsSync(dir)) rmdirSync(dir);
    return undefined;
  }
  return { dir, release: () => unmount(dir) };
}
