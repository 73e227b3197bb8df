/**
 * Real Redis and PostgreSQL servers for the tests (Debian's, installed by scripts/setup.sh): each on a free
 * private port with a temporary data directory, stopped and removed by `stop()`. PostgreSQL refuses to run as
 * root, so as root its files belong to, and it runs as, the `postgres` user (Debian's package creates it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface Service {
  url: string;
  port: number;
  /** Stops the server, keeping its data directory (for `start()` again on the same port). */
  pause(): Promise<void>;
  /** Starts a paused server again on the same port and data. */
  start(): Promise<void>;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
}

/** A port nothing listens on right now (bound once to pick it, then closed). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, timeoutMs: number, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const why = exited();
    if (why !== undefined) throw new Error(why);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs a server's first start; when it fails, stops the server and removes its directory: a server left running
 * would keep the test file's process alive after its tests ended.
 */
async function orRemoved(dir: string, child: () => ChildProcess | undefined, signal: NodeJS.Signals, first: () => Promise<void>): Promise<void> {
  try {
    await first();
  } catch (err) {
    await stopChild(child(), signal);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** As root, the `postgres` user's uid and gid (PostgreSQL refuses to run as root); nothing otherwise. */
function postgresUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
  return { uid: id('-u'), gid: id('-g') };
}

/** A Redis server whose data survives `pause()` and `start()` (an append-only file in its directory). */
export async function startRedis(): Promise<Service> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const start = async () => {
    log = '';
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    const c = child;
    await waitForPort(port, 10_000, () => (c.exitCode !== null ? `redis-server exited: ${log}` : undefined));
  };
  await orRemoved(dir, () => child, 'SIGTERM', start);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    pause: () => stopChild(child),
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const file = path.join(root, v, 'bin', name);
    if (existsSync(file)) return file;
  }
  throw new Error(`PostgreSQL's ${name} is not installed (run scripts/setup.sh)`);
}

/** A PostgreSQL server with one database, `envproof` (`createDatabase` adds more), that trusts local connections. */
export async function startPostgres(): Promise<Service> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const user = postgresUser();
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  const run = (name: string, args: string[]) => {
    const r = spawnSync(postgresBin(name), args, { encoding: 'utf8', cwd: dir, ...user });
    if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  let child: ChildProcess | undefined;
  const start = async () => {
    let log = '';
    const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'];
    child = spawn(postgresBin('postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, ...user });
    child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    const c = child;
    await waitForPort(port, 20_000, () => (c.exitCode !== null ? `postgres exited: ${log}` : undefined));
    // The port opens before the server accepts connections ("the database system is starting up").
    const deadline = Date.now() + 20_000;
    while (spawnSync(postgresBin('pg_isready'), ['-h', dir, '-p', String(port), '-U', 'postgres', '-q'], user).status !== 0) {
      if (c.exitCode !== null || Date.now() > deadline) throw new Error(`postgres did not become ready: ${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await orRemoved(dir, () => child, 'SIGINT', async () => {
    await start();
    run('createdb', ['-h', dir, '-p', String(port), '-U', 'postgres', 'envproof']);
  });
  // SIGINT is PostgreSQL's fast shutdown: it disconnects clients (SIGTERM would wait for them to leave).
  return {
    url: `postgres://postgres@127.0.0.1:${port}/envproof`,
    port,
    start,
    pause: () => stopChild(child, 'SIGINT'),
    stop: async () => {
      await stopChild(child, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates another database on the server of `url`; returns its URL. */
export async function createDatabase(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
