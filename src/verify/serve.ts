/**
 * A generated server's lifecycle in the sandbox, with the audit machinery: install into a fresh environment,
 * start `run.sh` under the tracer (PostgreSQL first when the task needs it: Debian's server, a fresh cluster per
 * run, inside the server's own network namespace), poll the health check while the process is alive, run the
 * suites, then stop the whole tree. The server's D1/D2/D3 and gaps come out like any audit's, measured under
 * real requests.
 *
 * The client (health polling, the suites) runs as a separate process inside the server's network namespace
 * (nsenter), so the server is reached on loopback while it has no other network. Where the sandbox shares the
 * host's network (the host backend), the server gets free ports instead of the task's own.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readlinkSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAudit } from '../audit/audit.js';
import type { AuditReport } from '../audit/report.js';
import { NoEntryPointError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import { shellQuote } from '../core/shell.js';
import { resolveBackend, type BackendChoice } from '../sandbox/index.js';
import { markedProcesses } from '../trace/reap.js';
import { POSTGRES, postgresStart } from './postgres.js';
import { STARTED_LINE, type ClientRequest, type ClientResult, type StartupOutcome } from './contract/client-types.js';
import { loadCollection } from './contract/collection.js';
import { readOpenApiDocument } from './contract/openapi-document.js';
import type { Database } from './types.js';

const MARKER_VARIABLE = 'ENVPROOF_SERVE_RUN';

/**
 * Debian packages added to the language's clean environment for servers: Debian's PostgreSQL server (started
 * per run when the task asks for it), and what native extensions of common server packages compile with
 * (sqlite3 and bcrypt for Node through node-gyp, against the headers of the environment's own Node 20, which
 * come with it; psycopg2 from source for Python). One derived environment per language, built once and cached.
 */
export const BACKEND_SYSTEM_PACKAGES: Record<'python' | 'javascript', readonly string[]> = {
  python: ['gcc', 'libc6-dev', 'libpq-dev', 'postgresql', 'python3-dev'],
  javascript: ['g++', 'make', 'postgresql', 'python3'],
};
/** The server's log keeps its beginning (start-up) and its end (the last requests). */
const SERVER_LOG = { head: 16 * 1024, tail: 48 * 1024 };

export interface ServeOptions {
  dir: string;
  language: 'python' | 'javascript';
  database?: Database;
  sandbox: BackendChoice;
  /** The port the task names; used as is in a private network namespace. */
  port: number;
  spec: string;
  collection?: string;
  /** How long the health check is polled once run.sh has started. */
  startupTimeoutSec: number;
  /** Limit of the whole serving run. */
  timeoutSec: number;
  /** Limit of each install and build step (default DEFAULT_INSTALL_TIMEOUT_SEC). */
  installTimeoutSec?: number;
  /** Commands run in the project before the server starts (a feature task's setup: migrations, ...). */
  setup?: string[];
  /** The command that starts the server (default `sh ./run.sh`). */
  start?: string;
  progress(message: string): void;
}

/** How the suites are run, whatever the server: the contract, the collection, the sandbox, the limits. */
export type ServingOptions = Pick<ServeOptions, 'spec' | 'collection' | 'sandbox' | 'startupTimeoutSec' | 'timeoutSec' | 'installTimeoutSec' | 'progress'>;

export interface ServeResult {
  startup: StartupOutcome;
  contract?: ClientResult['contract'];
  postman?: ClientResult['postman'];
  /** The server's layers, gaps and metrics while it served; `run.outputTail` is the server's log. */
  audit: AuditReport;
  /** Ports the server and PostgreSQL were given. */
  ports: { server: number; postgres?: number };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The traced command: the environment the prompt promises, PostgreSQL when needed, the setup, then the server in the foreground. */
function launcher(marker: string, env: Record<string, string>, start: { setup: readonly string[]; command: string }, postgres?: { dir: string; port: number }): string {
  const exports = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  const setup = start.setup.map((c) => `( ${c} ) || { echo "envproof: setup command failed: ${c.replace(/["\\$`]/g, '')}" >&2; exit 98; }`);
  // The marker comes last: the server's processes carry it, so the startup time is counted from run.sh on, not
  // from PostgreSQL's start or the setup.
  const server = `export ${MARKER_VARIABLE}=${shellQuote(marker)}`;
  // One pipe for everything: the log reads in the order things happened, stderr among stdout.
  return ['exec 2>&1', `export ${exports.join(' ')}`, ...(postgres ? [postgresStart(postgres.dir, postgres.port)] : []), ...setup, server, `exec ${start.command}`].join('\n');
}

/** The module next to this one with the same extension (`.ts` under tsx, `.js` once built). */
function sibling(name: string): { file: string; nodeArgs: string[]; cwd: string } {
  const here = fileURLToPath(import.meta.url);
  const ext = path.extname(here);
  return { file: path.join(path.dirname(here), name + ext), nodeArgs: ext === '.ts' ? ['--import', 'tsx'] : [], cwd: path.resolve(path.dirname(here), '..', '..') };
}

async function waitForServerProcess(marker: string, ended: { value: boolean }, timeoutMs: number): Promise<number | undefined> {
  const until = Date.now() + timeoutMs;
  while (!ended.value && Date.now() < until) {
    const [pid] = await markedProcesses(marker, { variable: MARKER_VARIABLE });
    if (pid !== undefined) return pid;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** The command prefix that enters the network namespace of `pid` when it is not ours. */
async function networkOf(pid: number): Promise<string[]> {
  let theirs: string;
  try {
    theirs = readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return [];
  }
  if (theirs === readlinkSync('/proc/self/ns/net')) return [];
  const enter = ['nsenter', `--net=/proc/${pid}/ns/net`, '--'];
  // Loopback is up in bwrap's namespaces; a namespace made with unshare(1) starts with it down.
  await runProcess([...enter, 'ip', 'link', 'set', 'lo', 'up'], { env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' }, timeoutMs: 10_000 });
  return enter;
}

/** Runs the client process; resolves with its result, or with a startup failure when the server ends first. */
function runClientProcess(prefix: string[], req: ClientRequest, ended: Promise<void>): Promise<ClientResult> {
  const { file, nodeArgs, cwd } = sibling('contract/client');
  return new Promise((resolve) => {
    const child = spawn(prefix[0] ?? process.execPath, [...prefix.slice(1), ...(prefix.length ? [process.execPath] : []), ...nodeArgs, file, JSON.stringify(req)], {
      cwd,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let started = false;
    let settled = false;
    const finish = (r: ClientResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      if (stderr.includes(STARTED_LINE)) started = true;
    });
    // A server that dies before it answers has not started; one that dies later fails the remaining requests.
    void ended.then(() => {
      if (started || settled) return;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      finish({ startup: { started: false, reason: 'the server exited before it answered the health check' } });
    });
    child.on('close', (code) => {
      if (code === 0) {
        try {
          finish(JSON.parse(stdout) as ClientResult);
          return;
        } catch {
          /* fall through */
        }
      }
      finish({ startup: { started: false, reason: `the evaluation client failed (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}` } });
    });
  });
}

/**
 * Why a server that exited did not start, from its log: the first line naming an error; for a Python
 * traceback, the exception line that ends it (`ModuleNotFoundError: No module named 'pkg_resources'`).
 */
export function startupCause(log: string): string | undefined {
  const lines = log.split('\n');
  const at = lines.findIndex((l) => /\bTraceback \(most recent call last\)|\b\w*Error\b/.test(l));
  if (at < 0) return undefined;
  if (!/Traceback \(most recent call last\)/.test(lines[at]!)) return lines[at]!.trim();
  const end = lines.findIndex((l, i) => i > at && /^\S/.test(l) && !/^During handling/.test(l));
  return (end < 0 ? lines[at]! : lines[end]!).trim();
}

function withCause(startup: StartupOutcome, log: string): StartupOutcome {
  if (startup.started || !/exited|ended/.test(startup.reason)) return startup;
  const cause = startupCause(log);
  return cause ? { started: false, reason: `${startup.reason}: ${cause.slice(0, 300)}` } : startup;
}

/** The contract and the collection, checked before anything is installed: bad input is an error, not a failed server. */
export function checkSuiteInputs(opts: Pick<ServeOptions, 'spec' | 'collection'>): void {
  readOpenApiDocument(opts.spec);
  if (opts.collection) loadCollection(opts.collection);
}

/** Installs, starts and exercises one server; a failed install throws as in an audit (StepFailedError). */
export async function serveAndTest(opts: ServeOptions): Promise<ServeResult> {
  checkSuiteInputs(opts);
  if (!opts.start && !existsSync(path.join(opts.dir, 'run.sh'))) {
    throw new NoEntryPointError(`no run.sh in ${opts.dir}`, 'the server must come with a run.sh that starts it in the foreground');
  }
  const isolated = resolveBackend(opts.sandbox).backend !== 'host';
  const ports = { server: isolated ? opts.port : await freePort(), ...(opts.database === 'postgresql' ? { postgres: isolated ? POSTGRES.port : await freePort() } : {}) };
  const marker = randomUUID();
  const env: Record<string, string> = { PORT: String(ports.server) };
  const pgDir = `/tmp/envproof-pg-${marker}`;
  if (ports.postgres !== undefined) {
    env.DATABASE_URL = `postgresql://${POSTGRES.user}:${POSTGRES.password}@${POSTGRES.host}:${ports.postgres}/${POSTGRES.database}`;
  }
  let client: ClientResult = { startup: { started: false, reason: 'the server was not started' } };
  const base = `http://127.0.0.1:${ports.server}`;
  try {
    const audit = await runAudit({
      dir: opts.dir,
      ecosystem: opts.language,
      run: [launcher(marker, env, { setup: opts.setup ?? [], command: opts.start ?? 'sh ./run.sh' }, ports.postgres !== undefined ? { dir: pgDir, port: ports.postgres } : undefined)],
      timeoutSec: opts.timeoutSec,
      ...(opts.installTimeoutSec !== undefined ? { installTimeoutSec: opts.installTimeoutSec } : {}),
      keep: false,
      sandbox: opts.sandbox,
      // The host backend cannot add packages: there PostgreSQL and the compilers are the host's own.
      ...(isolated ? { environment: { systemPackages: [...BACKEND_SYSTEM_PACKAGES[opts.language]] } } : {}),
      outputTailBytes: SERVER_LOG.tail,
      outputHeadBytes: SERVER_LOG.head,
      progress: opts.progress,
      whileRunning: async ({ ended }) => {
        const over = { value: false };
        void ended.then(() => (over.value = true));
        opts.progress(`starting run.sh; polling ${base}/api/health-check`);
        const pid = await waitForServerProcess(marker, over, opts.timeoutSec * 1000);
        if (pid === undefined) {
          client = { startup: { started: false, reason: over.value ? 'run.sh ended before the server answered' : 'run.sh did not start' } };
          return;
        }
        const req: ClientRequest = {
          baseUrl: `${base}/api`,
          healthUrl: `${base}/api/health-check`,
          startupTimeoutMs: opts.startupTimeoutSec * 1000,
          spec: path.resolve(opts.spec),
          ...(opts.collection ? { collection: path.resolve(opts.collection) } : {}),
          timeoutMs: opts.timeoutSec * 1000,
        };
        client = await runClientProcess(await networkOf(pid), req, ended);
        if (client.startup.started) opts.progress('suites done; stopping the server');
      },
    });
    return { startup: withCause(client.startup, audit.run.outputTail), ...(client.contract ? { contract: client.contract } : {}), ...(client.postman ? { postman: client.postman } : {}), audit, ports };
  } finally {
    // On the host backend the cluster lives in the host's /tmp; in bwrap /tmp is the sandbox's own.
    rmSync(pgDir, { recursive: true, force: true });
  }
}
