/**
 * Kills what a traced run left behind. Killing the process group on timeout misses processes that
 * moved to another session (setsid) and, once strace is gone, nothing else follows them.
 */
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Environment variable carrying a per-run marker, inherited by every process of the run. */
export const RUN_MARKER_VARIABLE = 'ENVPROOF_TRACE_RUN';

/** Linux reports process start times in USER_HZ ticks, which is 100 on every architecture. */
const USER_HZ = 100;
const MAX_ROUNDS = 10;

/** Clock ticks since boot, comparable with the start time in /proc/<pid>/stat. */
export async function ticksSinceBoot(): Promise<number> {
  const uptime = Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]);
  return Math.floor(uptime * USER_HZ);
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'latin1');
  } catch {
    return null;
  }
}

/** When a live (not zombie) process started, in ticks since boot; null when it is dead or gone. */
async function liveStartTicks(pid: number): Promise<number | null> {
  const stat = await readOrNull(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // Fields after the command name, which is in parentheses and may contain spaces: state is field 3, starttime 22.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return null;
  const value = Number(fields[19]);
  return Number.isFinite(value) ? value : null;
}

async function carriesMarker(pid: number, marker: string): Promise<boolean> {
  const environ = await readOrNull(`/proc/${pid}/environ`);
  return environ !== null && `\0${environ}`.includes(`\0${RUN_MARKER_VARIABLE}=${marker}\0`);
}

async function isTraced(pid: number): Promise<boolean> {
  const status = await readOrNull(`/proc/${pid}/status`);
  const tracer = status === null ? null : /^TracerPid:\s*(\d+)/m.exec(status);
  return tracer !== null && tracer[1] !== '0';
}

export interface LeftoverQuery {
  /** Host pids seen in the log (only when the sandbox shares the host's pid space)... */
  logPids?: readonly number[];
  /** ...killed when they started at or after this many ticks since boot (so not a reused pid). */
  startedAt?: number;
  /** Only processes being traced: the program's, not strace itself. */
  tracedOnly?: boolean;
}

async function survivors(marker: string, query: LeftoverQuery): Promise<number[]> {
  const found = new Set<number>();
  const all = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number);
  await Promise.all(
    all.map(async (pid) => {
      if (pid === process.pid || !(await carriesMarker(pid, marker))) return;
      if (!query.tracedOnly || (await isTraced(pid))) found.add(pid);
    }),
  );
  const { logPids = [], startedAt } = query;
  if (startedAt !== undefined) {
    await Promise.all(
      logPids.map(async (pid) => {
        const started = await liveStartTicks(pid);
        if (pid !== process.pid && started !== null && started >= startedAt) found.add(pid);
      }),
    );
  }
  return [...found];
}

/**
 * Kills every process carrying `marker` in its environment (or, with `tracedOnly`, every such process
 * under strace) and the log pids the query admits. Repeats while it finds some, since a dying tree may
 * still be forking. Returns how many it killed.
 */
export async function killLeftovers(marker: string, query: LeftoverQuery = {}): Promise<number> {
  let killed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const pids = await survivors(marker, query);
    let hit = 0;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        hit++;
      } catch {
        /* already gone */
      }
    }
    if (hit === 0) break;
    killed += hit;
    await sleep(20);
  }
  return killed;
}
