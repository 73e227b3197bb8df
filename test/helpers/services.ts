/**
 * Real Redis and PostgreSQL servers for the tests (Debian's, installed by scripts/setup.sh): each on a free
 * private port with a temporary data directory, stopped and removed by `stop()`. PostgreSQL refuses to run as
 * root, so as root its files belong to, and it runs as, the `postgres` user.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

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

function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Runs a command as `user` when we are root (runuser), as ourselves otherwise. */
function asUser(user: string, command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', user, '--', command, ...args]] : [command, args];
}

/** A Redis server without persistence. */
export async function startRedis(): Promise<Service> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = '';
  const start = async () => {
    log = '';
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    const c = child;
    await waitForPort(port, 10_000, () => (c.exitCode !== null ? `redis-server exited: ${log}` : undefined));
  };
  await start();
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

/** A PostgreSQL server with one database, `envproof`, that trusts local connections. */
export async function startPostgres(): Promise<Service> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const root = process.getuid?.() === 0;
  if (root) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gw = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(pw.stdout), Number(gw.stdout));
  }
  const run = (name: string, args: string[]) => {
    const [cmd, argv] = asUser('postgres', postgresBin(name), args);
    const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${name} ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  let child: ChildProcess | undefined;
  const start = async () => {
    let log = '';
    const [cmd, argv] = asUser('postgres', postgresBin('postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']);
    child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
    child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    const c = child;
    await waitForPort(port, 20_000, () => (c.exitCode !== null ? `postgres exited: ${log}` : undefined));
  };
  await start();
  run('createdb', ['-h', dir, '-p', String(port), '-U', 'postgres', 'envproof']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/envproof`,
    port,
    start,
    pause: () => stopChild(child),
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
