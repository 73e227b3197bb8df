import { createHash } from 'node:crypto';
import { chmod, lstat, readdir, readFile, readlink, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { skippedDirs } from '../ecosystems/index.js';
import type { TreeEntry, TreeSnapshot } from '../store/types.js';
import { makeProjectDir, writeProjectFile } from '../core/safe-write.js';

export type { TreeEntry, TreeSnapshot };


const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

export async function snapshotTree(root: string): Promise<TreeSnapshot> {
  const entries: TreeEntry[] = [];
  const blobs = new Map<string, Buffer>();
  const skipped = skippedDirs();
  const walk = async (dir: string): Promise<void> => {
    for (const d of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, d.name);
      const rel = path.relative(root, full).split(path.sep).join('/');
      if (d.isDirectory()) {
        // Directories an install or build creates are not part of what the agent wrote.
        if (!skipped.has(d.name)) await walk(full);
      } else if (d.isSymbolicLink()) {
        const target = Buffer.from(await readlink(full));
        const blob = sha256(target);
        blobs.set(blob, target);
        entries.push({ path: rel, kind: 'symlink', executable: false, blob });
      } else if (d.isFile()) {
        const content = await readFile(full);
        const blob = sha256(content);
        blobs.set(blob, content);
        entries.push({ path: rel, kind: 'file', executable: ((await lstat(full)).mode & 0o111) !== 0, blob });
      }
    }
  };
  await walk(root);
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = sha256(entries.map((e) => `${e.kind} ${e.executable ? 'x' : '-'} ${e.blob} ${e.path}\n`).join(''));
  return { hash, entries, blobs };
}

/** Recreates a stored tree in an empty (or emptied) directory. */
export async function restoreTree(root: string, entries: readonly TreeEntry[], blob: (hash: string) => Buffer): Promise<void> {
  for (const name of await readdir(root)) await rm(path.join(root, name), { recursive: true, force: true });
  for (const e of entries) {
    // A stored path is data: no entry may lead the writes out of the tree through a link an earlier entry made.
    if (e.kind === 'symlink') await symlink(blob(e.blob).toString(), path.join(await makeProjectDir(root, path.dirname(e.path)), path.basename(e.path)));
    else {
      await writeProjectFile(root, e.path, blob(e.blob));
      const target = path.join(root, e.path);
      if (e.executable) await chmod(target, 0o755);
    }
  }
}
