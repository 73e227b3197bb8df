/**
 * Kills what a traced run left behind. Killing the process group on timeout misses processes that moved
 * to another session (setsid) and, once strace is gone, nothing follows them any more. Every process of
 * a run inherits a marker in its environment; pids from the log are not used, since in a sandbox with
 * its own pid namespace they are not host pids.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Environment variable carrying a per-run marker, inherited by every process of the run. */
export const RUN_MARKER_VARIABLE = 'ENVPROOF_TRACE_RUN';

const MAX_ROUNDS = 10;
/** How often, once a run is this far past its time limit, processes that escaped the group kill are looked for. */
export const STRAGGLER_CHECK_MS = 500;

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'latin1');
  } catch {
    return null;
  }
}

async function carriesMarker(pid: number, marker: string, variable: string): Promise<boolean> {
  const environ = await readOrNull(`/proc/${pid}/environ`);
  return environ !== null && `\0${environ}`.includes(`\0${variable}=${marker}\0`);
}

async function isTraced(pid: number): Promise<boolean> {
  const status = await readOrNull(`/proc/${pid}/status`);
  const tracer = status === null ? null : /^TracerPid:\s*(\d+)/m.exec(status);
  return tracer !== null && tracer[1] !== '0';
}

/** Host pids of the processes whose environment holds `variable=marker` (default: a traced run's marker). */
export async function markedProcesses(marker: string, opts: { tracedOnly?: boolean; variable?: string } = {}): Promise<number[]> {
  const all = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number);
  const tracedOnly = opts.tracedOnly ?? false;
  const found = await Promise.all(
    all.map(async (pid) => {
      if (pid === process.pid || !(await carriesMarker(pid, marker, opts.variable ?? RUN_MARKER_VARIABLE))) return null;
      return !tracedOnly || (await isTraced(pid)) ? pid : null;
    }),
  );
  return found.filter((pid): pid is number => pid !== null);
}

/**
 * Kills every process carrying `marker` in its environment, or with `tracedOnly` every such process under
 * strace (the program's, not strace itself). Repeats while it finds some, since a dying tree may still be
 * forking. Returns how many it killed.
 */
export async function killLeftovers(marker: string, opts: { tracedOnly?: boolean } = {}): Promise<number> {
  let killed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let hit = 0;
    for (const pid of await markedProcesses(marker, opts)) {
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

/**
 * Runs `work` with a fresh marker to put in the run's environment. A process that left the process group
 * keeps the output pipes open, so the sandbox's exec would not return at its time limit: once past it, such
 * processes are killed; when `work` ends, whatever still carries the marker is.
 */
export async function reapingRun<T>(timeoutMs: number, work: (marker: string) => Promise<T>): Promise<T> {
  const marker = randomUUID();
  const started = Date.now();
  const stragglers = setInterval(() => {
    if (Date.now() - started > timeoutMs + STRAGGLER_CHECK_MS) void killLeftovers(marker);
  }, STRAGGLER_CHECK_MS);
  try {
    return await work(marker);
  } finally {
    clearInterval(stragglers);
    await killLeftovers(marker);
  }
}
