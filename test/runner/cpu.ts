/**
 * CPU time per test file, its whole process tree included (the CLI it starts, pip, npm, Maven, compilers in bwrap):
 * each file's process is put in a control group of its own, whose CPU counter the kernel keeps for every process
 * that starts in it. It says whether a slow file waits (wall time well above CPU time) or computes, which is what
 * decides the concurrency (docs/testing.md). Needs root and a cgroup hierarchy with CPU accounting (v2, or v1's
 * cpuacct); elsewhere no file has a CPU time. Podman's containers are counted in podman's own groups, not here.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface Hierarchy {
  root: string;
  /** CPU seconds used by the group's processes so far. */
  read(group: string): number;
}

const v2: (root: string) => Hierarchy = (root) => ({
  root,
  read: (group) => Number(/^usage_usec (\d+)$/m.exec(readFileSync(path.join(group, 'cpu.stat'), 'utf8'))?.[1]) / 1e6,
});
const v1cpuacct: (root: string) => Hierarchy = (root) => ({
  root,
  read: (group) => Number(readFileSync(path.join(group, 'cpuacct.usage'), 'utf8')) / 1e9,
});

function findHierarchy(): Hierarchy | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (existsSync('/sys/fs/cgroup/cgroup.procs') && existsSync('/sys/fs/cgroup/cpu.stat')) return v2('/sys/fs/cgroup');
  if (existsSync('/sys/fs/cgroup/cpuacct/cpuacct.usage')) return v1cpuacct('/sys/fs/cgroup/cpuacct');
  if (existsSync('/sys/fs/cgroup/unified/cgroup.procs')) return v2('/sys/fs/cgroup/unified');
  return undefined;
}

/** One file's group: `seconds()` once its process tree has ended, then `remove()`. */
export interface CpuGroup {
  seconds(): number | undefined;
  remove(): void;
}

let counter = 0;

/** Moves `pid` (just spawned, before it can start children of its own) into a new group; undefined where none can be made. */
export function accountCpu(pid: number | undefined): CpuGroup | undefined {
  const h = hierarchy();
  if (!h || pid === undefined) return undefined;
  const group = path.join(h.root, `envproof-test-${process.pid}-${++counter}`);
  try {
    mkdirSync(group);
    writeFileSync(path.join(group, 'cgroup.procs'), String(pid));
  } catch {
    removeQuietly(group);
    return undefined;
  }
  return {
    seconds: () => {
      try {
        return h.read(group);
      } catch {
        return undefined;
      }
    },
    remove: () => removeQuietly(group),
  };
}

let found: Hierarchy | null | undefined;
function hierarchy(): Hierarchy | undefined {
  if (found === undefined) found = findHierarchy() ?? null;
  return found ?? undefined;
}

/** A group still holding a process (a daemon that outlived its file) cannot be removed: it is left behind. */
function removeQuietly(group: string): void {
  try {
    rmdirSync(group);
  } catch {
    /* busy or gone */
  }
}
