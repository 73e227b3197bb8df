import { spawn } from 'node:child_process';

export interface ProcessOptions {
  cwd?: string;
  /** The complete environment of the child; nothing is inherited unless passed here. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Keep at most this many bytes of each stream (the tail). */
  maxOutputBytes?: number;
  stdin?: string;
  /** Aborting it kills the command's process group at once (envproof is being stopped). */
  signal?: AbortSignal;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Set when the executable could not be started at all (ENOENT, EACCES). */
  spawnError?: string;
}

const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;

/** Keeps the last `limit` bytes written to it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
      this.truncated = true;
    }
  }
  toString(): string {
    let buf = Buffer.concat(this.chunks);
    if (buf.length > this.limit) {
      buf = buf.subarray(buf.length - this.limit);
      this.truncated = true;
    }
    return (this.truncated ? '[... output truncated ...]\n' : '') + buf.toString('utf8');
  }
}

/** Process groups of the commands running now, so that envproof can stop them all when it is stopped itself. */
const runningGroups = new Set<number>();

/**
 * Kills the process group of every command runProcess is running (Ctrl-C or SIGTERM reach envproof only: each
 * command runs in a group of its own). The commands then end as killed by SIGKILL. Returns how many were running.
 */
export function killRunningProcessGroups(): number {
  const groups = [...runningGroups];
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* the group is already gone */
    }
  }
  return groups.length;
}

/**
 * Runs a command in its own process group and kills the whole group on timeout or when it exits
 * (so background children it leaves behind do not outlive it). Never throws for a failing command.
 */
export function runProcess(argv: readonly string[], opts: ProcessOptions): Promise<ProcessResult> {
  const [cmd, ...args] = argv;
  if (!cmd) throw new Error('runProcess: empty command');
  const limit = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const started = performance.now();
  return new Promise((resolve) => {
    const stdout = new TailBuffer(limit);
    const stderr = new TailBuffer(limit);
    let timedOut = false;
    let settled = false;
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* the group is already gone */
      }
    };
    if (child.pid !== undefined) runningGroups.add(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', killGroup, { once: true });
    if (opts.signal?.aborted) killGroup();
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
    const finish = (result: Omit<ProcessResult, 'stdout' | 'stderr' | 'durationMs' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', killGroup);
      killGroup();
      if (child.pid !== undefined) runningGroups.delete(child.pid);
      resolve({
        ...result,
        timedOut,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        durationMs: performance.now() - started,
      });
    };
    child.on('error', (err) => finish({ exitCode: null, signal: null, spawnError: err.message }));
    child.on('close', (code, signal) => finish({ exitCode: code, signal }));
  });
}

/** Why a command did not succeed, in a few words (what it printed is the caller's to show). */
export function describeFailure(r: ProcessResult): string {
  if (r.timedOut) return 'timed out';
  if (r.spawnError) return `could not start: ${r.spawnError}`;
  return r.signal ? `killed by ${r.signal}` : `exited with ${r.exitCode}`;
}

/** The last `lines` lines of a text, for error messages. */
export function tail(text: string, lines = 40): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

/**
 * A text cut to at most about `headBytes + tailBytes` characters: its beginning and its end, with a line saying
 * how much was left out between them (a server's start-up and its last requests both matter).
 */
export function headAndTail(text: string, headBytes: number, tailBytes: number): string {
  if (text.length <= headBytes + tailBytes) return text;
  if (headBytes === 0) return text.slice(-tailBytes);
  const cut = text.length - headBytes - tailBytes;
  return `${text.slice(0, headBytes)}\n[… ${cut} characters left out …]\n${text.slice(-tailBytes)}`;
}
