/**
 * The package caches a sandboxed command sees at /envproof/cache.
 *
 * The shared caches (`$ENVPROOF_CACHE_DIR/sandbox-cache/{pip,npm,m2}`) are never mounted writable. As root,
 * each command gets an overlay: the shared caches read-only at the bottom, the layers of this sandbox's earlier
 * commands above them, and a fresh writable layer on top. What a command writes lands in its own layer only,
 * and later commands of the same sandbox see it (the build sees what the install downloaded). After a command
 * that had the network, envproof itself publishes into the shared caches the files of its layer that it can
 * verify against the registry (CachePublisher per cache); nothing else ever reaches them. Without root (no
 * overlay mounts), a sandbox gets a private, initially empty cache instead: nothing is shared, nothing leaks.
 * See docs/sandbox-caches.md for the trust model.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { runProcess } from '../core/process.js';
import { sandboxCacheDir } from './paths.js';
import { isAlive } from './lock.js';

/** One package manager's cache under the shared directory, and how to publish into it what can be verified. */
export interface CachePublisher {
  /** Subdirectory of the cache root (pip, npm, m2). */
  dir: string;
  /**
   * Copies from `layer` (a command's writable layer of this cache) into `shared` the entries the registry
   * confirms, never overwriting a file; returns how many files were published and how many were not.
   */
  publish(layer: string, shared: string): Promise<PublishCount>;
}

export interface PublishCount {
  published: number;
  rejected: number;
}

export type CacheMode = 'layered' | 'private';

const HOST_ENV = () => ({ PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' });

export function layersRoot(): string {
  return path.join(cacheRoot(), 'cache-layers');
}

let overlayVerdict: Promise<boolean> | undefined;

/** Whether overlay mounts work here (root, and a kernel with overlayfs); probed once. */
export function overlaySupported(): Promise<boolean> {
  overlayVerdict ??= (async () => {
    if (process.getuid?.() !== 0) return false;
    const dir = path.join(layersRoot(), `.probe-${process.pid}-${randomUUID().slice(0, 8)}`);
    const parts = ['lower', 'upper', 'work', 'merged'].map((p) => path.join(dir, p));
    try {
      for (const p of parts) await mkdir(p, { recursive: true });
      const [lower, upper, work, merged] = parts as [string, string, string, string];
      const r = await runProcess(['mount', '-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${work}`, merged], { env: HOST_ENV(), timeoutMs: 30_000 });
      if (r.exitCode !== 0) return false;
      await unmount(merged);
      return true;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return overlayVerdict;
}

async function unmount(dir: string): Promise<void> {
  const r = await runProcess(['umount', dir], { env: HOST_ENV(), timeoutMs: 60_000 });
  if (r.exitCode !== 0) await runProcess(['umount', '--lazy', dir], { env: HOST_ENV(), timeoutMs: 60_000 });
}

/** Mount points at or below `dir`, deepest first. */
async function mountsUnder(dir: string): Promise<string[]> {
  const info = await readFile('/proc/self/mountinfo', 'utf8');
  return info
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

async function removeLayers(dir: string): Promise<void> {
  for (const m of await mountsUnder(dir)) await unmount(m);
  await rm(dir, { recursive: true, force: true });
}

/** Layers of sandboxes whose envproof process is gone (killed mid-run) are removed. */
async function sweepAbandoned(): Promise<void> {
  if (!existsSync(layersRoot())) return;
  for (const name of readdirSync(layersRoot())) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (pid > 0 && !isAlive(pid)) await removeLayers(path.join(layersRoot(), name));
  }
}

/** One command's view of the caches: the host directory to bind at /envproof/cache, and how to end it. */
export interface CacheView {
  dir: string;
  /** Unmounts the view; with `publish`, publishes what can be verified from the command's layer. */
  leave(publish: boolean): Promise<PublishCount>;
}

/** The cache layers of one sandbox. */
export class CacheLayers {
  private readonly uppers: string[] = [];
  private commands = 0;

  private constructor(
    readonly mode: CacheMode,
    private readonly root: string,
    private readonly shared: string,
    private readonly publishers: readonly CachePublisher[],
    private readonly owner: number | undefined,
  ) {}

  /** `owner`: the uid the sandbox's programs run as (they must be able to write their layer). */
  static async open(publishers: readonly CachePublisher[], owner: number | undefined): Promise<CacheLayers> {
    await mkdir(layersRoot(), { recursive: true });
    await sweepAbandoned();
    const root = path.join(layersRoot(), `${process.pid}-${randomUUID().slice(0, 8)}`);
    await mkdir(root);
    const mode: CacheMode = (await overlaySupported()) ? 'layered' : 'private';
    const layers = new CacheLayers(mode, root, sandboxCacheDir(), publishers, owner);
    await layers.prepare();
    return layers;
  }

  /**
   * The caches' own directories belong to the sandbox's user, so that its programs can write them through the
   * overlay (into their own layer); the top stays root's, so that a program cannot swap one for a symlink.
   */
  private async prepare(): Promise<void> {
    const base = this.mode === 'layered' ? this.shared : path.join(this.root, 'private');
    const dirs = this.publishers.map((p) => path.join(base, p.dir));
    for (const d of dirs) await mkdir(d, { recursive: true });
    if (this.owner === undefined) return;
    const owner = `${this.owner}:${this.owner}`;
    for (const argv of [['chown', '--no-dereference', '0:0', base], ['chown', '--no-dereference', owner, ...dirs]]) {
      const r = await runProcess(argv, { env: HOST_ENV(), timeoutMs: 60_000 });
      if (r.exitCode !== 0) throw new Error(`cannot prepare the package caches: ${r.stderr.trim()}`);
    }
  }

  /** Mounts the view for the next command. */
  async enter(): Promise<CacheView> {
    if (this.mode === 'private') return { dir: path.join(this.root, 'private'), leave: async () => ({ published: 0, rejected: 0 }) };
    const layer = path.join(this.root, String(++this.commands));
    const [upper, work, merged] = ['upper', 'work', 'merged'].map((p) => path.join(layer, p)) as [string, string, string];
    for (const d of [upper, work, merged]) await mkdir(d, { recursive: true });
    // Newest first: a later command sees what earlier ones wrote above the shared caches.
    const lower = [...this.uppers].reverse().concat(this.shared).join(':');
    const r = await runProcess(['mount', '-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${work}`, merged], {
      env: HOST_ENV(),
      timeoutMs: 60_000,
    });
    if (r.exitCode !== 0) throw new Error(`cannot mount the package-cache layer: ${r.stderr.trim()}`);
    return {
      dir: merged,
      leave: async (publish) => {
        await unmount(merged);
        await rm(work, { recursive: true, force: true });
        this.uppers.push(upper);
        return publish ? this.publish(upper) : { published: 0, rejected: 0 };
      },
    };
  }

  private async publish(upper: string): Promise<PublishCount> {
    const total: PublishCount = { published: 0, rejected: 0 };
    for (const p of this.publishers) {
      const layer = path.join(upper, p.dir);
      if (!existsSync(layer)) continue;
      const n = await p.publish(layer, path.join(this.shared, p.dir));
      total.published += n.published;
      total.rejected += n.rejected;
    }
    return total;
  }

  /**
   * Host path of a file under /envproof/cache as the sandbox's commands left it: the newest layer holding it
   * (null where a layer deleted it), else the shared cache.
   */
  toHost(relative: string): string | null {
    if (this.mode === 'private') return path.join(this.root, 'private', relative);
    for (const upper of [...this.uppers].reverse()) {
      const p = path.join(upper, relative);
      const st = lstatSafe(p);
      if (st) return st.isCharacterDevice() && st.rdev === 0 ? null : p;
    }
    return path.join(this.shared, relative);
  }

  async dispose(): Promise<void> {
    await removeLayers(this.root);
  }
}

/**
 * Runs one command with its view of the caches; after a command that had the network, what envproof can verify
 * of its layer is published.
 */
export async function withCacheView<T>(caches: CacheLayers, network: boolean, run: (cacheDir: string) => Promise<T>): Promise<T> {
  const view = await caches.enter();
  try {
    return await run(view.dir);
  } finally {
    await view.leave(network);
  }
}

function lstatSafe(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}
