import { spawn } from 'node:child_process';

export interface ProcessOptions {
  cwd?: string;
  /** The complete environment of the child; nothing is inherited unless passed here. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Keep at most this many bytes of each stream (the tail). */
  maxOutputBytes?: number;
  stdin?: string;
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
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
    const finish = (result: Omit<ProcessResult, 'stdout' | 'stderr' | 'durationMs' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup();
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
