/**
 * The fast tracer's user-space program (native/fasttrace/fasttrace.c): started on first use, it loads the
 * kernel part once and serves every traced run of this envproof process, and ends with it (its standard
 * input closes). Its records never touch a file system: they come through a pipe no sandbox can reach.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { nativeProgram } from '../native.js';
import { RecordKind, RecordStream, type TraceRecord } from './records.js';

/** Why the fast tracer cannot run here (not built, not root, a kernel without BTF, ...). */
export class FastTracerUnavailable extends Error {}

export interface FastTraceOptions {
  /** Pages of the kernel's ring buffer (a power of two); the default holds 16 MiB. */
  ringPages?: number;
}

export interface DaemonRun {
  /** Kills every process of the run (the kernel part knows them all, wherever they moved). */
  kill(): void;
  /**
   * Kills what is left of the run and forgets it, once every record of it has been delivered; resolves with
   * how many were lost. The tracer ends a run by itself when its last process ends: then nothing is asked.
   */
  end(): Promise<number>;
  /** Settles like `end`, once the run is over: its last process ended, or `end` was asked. */
  readonly over: Promise<number>;
}

const START_TIMEOUT_MS = 60_000;
const STDERR_KEPT = 4000;

interface Waiter {
  resolve(aux: number, message: string): void;
  reject(err: Error): void;
}

export class FastTraceDaemon {
  private readonly stream = new RecordStream();
  private readonly listeners = new Map<number, (r: TraceRecord) => void>();
  /** Answers awaited, by record kind and run. */
  private readonly waiters = new Map<string, Waiter>();
  private stderr = '';
  private dead: string | null = null;
  private nextRun = 1;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (chunk: Buffer) => {
      for (const r of this.stream.push(chunk)) this.deliver(r);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    child.stdin.on('error', () => {});
    child.on('error', (err) => this.fail(err.message));
    child.on('close', (code, signal) => this.fail(this.stderr.trim().split('\n').at(-1) || `it exited (${signal ?? `code ${code}`})`));
    // Idle, the tracer must not keep envproof alive; `expect` holds a reference while an answer is awaited.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as Socket).unref();
  }

  /** Starts the program and waits until it is attached to the kernel. */
  static async start(opts: FastTraceOptions = {}): Promise<FastTraceDaemon> {
    const program = nativeProgram('fastTracer');
    if (!program) throw new FastTracerUnavailable('it is not built (scripts/setup.sh builds it)');
    if (process.platform !== 'linux' || process.arch !== 'x64') throw new FastTracerUnavailable(`it supports Linux on x86-64 only, not ${process.platform} on ${process.arch}`);
    const args = opts.ringPages === undefined ? [] : ['--ring-pages', String(opts.ringPages)];
    const daemon = new FastTraceDaemon(spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], env: {} }));
    const timer = setTimeout(() => daemon.fail(`it did not start within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    try {
      await daemon.expect(RecordKind.ready, 0);
    } finally {
      clearTimeout(timer);
    }
    return daemon;
  }

  /** Registers a run whose gate is the file `gateHost`; its records go to `onRecord` until it ends. */
  async open(gateHost: string, onRecord: (r: TraceRecord) => void): Promise<DaemonRun> {
    if (gateHost.includes('\n')) throw new FastTracerUnavailable(`the work directory's path has a line break: ${JSON.stringify(gateHost)}`);
    const run = this.nextRun++;
    this.listeners.set(run, onRecord);
    const registered = this.expect(RecordKind.gate, run);
    this.send(`gate ${run} ${gateHost}`);
    try {
      await registered;
    } catch (err) {
      this.listeners.delete(run);
      throw err;
    }
    let ended = false;
    const over = this.expect(RecordKind.end, run).finally(() => {
      ended = true;
      this.listeners.delete(run);
    });
    over.catch(() => {}); // awaited by `end`, which is always called, but perhaps after the daemon failed
    return {
      kill: () => this.send(`kill ${run}`),
      end: () => {
        if (!ended) this.send(`end ${run}`);
        return over;
      },
      over,
    };
  }

  /** Stops the program (tests and benchmarks that start their own). */
  stop(): void {
    this.child.stdin.end();
  }

  private send(command: string): void {
    if (this.dead === null) this.child.stdin.write(`${command}\n`);
  }

  private expect(kind: number, run: number): Promise<number> {
    if (this.dead !== null) return Promise.reject(new FastTracerUnavailable(this.dead));
    const key = `${kind}:${run}`;
    (this.child.stdout as unknown as Socket).ref();
    return new Promise<number>((resolve, reject) => {
      const settle = () => {
        this.waiters.delete(key);
        if (this.waiters.size === 0) (this.child.stdout as unknown as Socket).unref();
      };
      this.waiters.set(key, {
        resolve: (aux, message) => {
          settle();
          // A refused gate is the only answer that carries an error.
          if (kind === RecordKind.gate && aux !== 0) reject(new FastTracerUnavailable(message));
          else resolve(aux);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      });
    });
  }

  private deliver(r: TraceRecord): void {
    if (r.kind >= RecordKind.ready) {
      this.waiters.get(`${r.kind}:${r.run}`)?.resolve(r.aux, r.path);
      return;
    }
    this.listeners.get(r.run)?.(r);
  }

  private fail(reason: string): void {
    if (this.dead !== null) return;
    this.dead = reason;
    for (const w of [...this.waiters.values()]) w.reject(new FastTracerUnavailable(reason));
  }
}

let shared: Promise<FastTraceDaemon> | undefined;

/** The tracer program this envproof process shares between its runs (a failure to start is remembered). */
export function sharedDaemon(): Promise<FastTraceDaemon> {
  shared ??= FastTraceDaemon.start();
  return shared;
}
