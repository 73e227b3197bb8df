/** File helpers for publishing verified entries from a command's cache layer into the shared caches. */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, copyFile, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandboxUid } from './uid.js';

/** Regular files under `dir`, as paths relative to it; symlinks, whiteouts and other special files are left out. */
export async function layerFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) await walk(r);
      else if (e.isFile()) out.push(r);
    }
  };
  if (existsSync(dir)) await walk('');
  return out.sort();
}

export async function fileDigest(file: string, algorithm: string, encoding: 'hex' | 'base64' = 'hex'): Promise<string> {
  return createHash(algorithm).update(await readFile(file)).digest(encoding);
}

/** Creates the missing directories of `dir` below `top`, owned like the cache (the sandbox user's). */
async function makeDirs(top: string, dir: string, uid: number | undefined): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; d !== top && d.startsWith(`${top}/`) && !existsSync(d); d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      await mkdir(d);
    } catch (err) {
      // Another publisher (of a file beside this one, or another audit's) made it in the meantime.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && (await lstat(d)).isDirectory()) continue;
      throw err;
    }
    if (uid !== undefined) await chown(d, uid, uid);
  }
}

/**
 * Writes `data` (or copies `source`) to `shared/rel` unless a file is there already: through a temporary file
 * and a rename, so a sandbox reading the shared cache never sees half a file; owned by the sandbox user, so its
 * programs may change it in their own layer (overlayfs checks the lower file's permissions).
 */
export async function publishFile(shared: string, rel: string, content: { source: string } | { data: string | Uint8Array }): Promise<boolean> {
  const target = path.join(shared, rel);
  if (!target.startsWith(`${shared}/`) || (await lstat(target).catch(() => null))) return false;
  const uid = sandboxUid();
  await makeDirs(shared, path.dirname(target), uid);
  const tmp = path.join(path.dirname(target), `.envproof-${randomUUID()}`);
  try {
    if ('source' in content) await copyFile(content.source, tmp);
    else await writeFile(tmp, content.data);
    if (uid !== undefined) await chown(tmp, uid, uid);
    await rename(tmp, target);
  } finally {
    await rm(tmp, { force: true });
  }
  return true;
}

/** The body of `url`, or null when the registry does not answer with 200 (a network failure included). */
export async function fetchBody(url: string, timeoutMs = 30_000): Promise<string | null> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { 'user-agent': 'envproof (cache verification)' } });
    return r.ok ? await r.text() : null;
  } catch {
    return null;
  }
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
