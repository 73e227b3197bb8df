import { lstat, mkdir, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { skippedDirs } from '../ecosystems/index.js';

/** Bounds on what an agent may leave in its workspace. */
export const LIMITS = { maxFileBytes: 2 * 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024, maxFiles: 2000 };

export interface FileRejection {
  path: string;
  reason: 'absolute-path' | 'parent-escape' | 'symlink-outside' | 'too-large' | 'too-many-files' | 'invalid-path';
}

/** Why a relative path from an agent may not be written, or undefined when it is fine. */
export function unsafeRelativePath(rel: string): FileRejection['reason'] | undefined {
  if (!rel || rel.includes('\0')) return 'invalid-path';
  if (rel.startsWith('/') || /^[A-Za-z]:[\\/]/.test(rel) || rel.startsWith('\\')) return 'absolute-path';
  const parts = rel.split(/[\\/]+/);
  if (parts.includes('..')) return 'parent-escape';
  return undefined;
}

async function nearestExisting(p: string): Promise<string> {
  let dir = p;
  while (!(await lstat(dir).catch(() => undefined))) dir = path.dirname(dir);
  return dir;
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Writes files an agent returned into the workspace. Absolute paths, `..`, writes through a symlink that
 * leaves the workspace and oversized files are refused and reported, never written.
 */
export async function writeProjectFiles(workspace: string, files: { path: string; content: string }[]): Promise<FileRejection[]> {
  const root = await realpath(workspace);
  const rejected: FileRejection[] = [];
  let total = 0;
  for (const f of files.slice(0, LIMITS.maxFiles)) {
    const reason = unsafeRelativePath(f.path);
    if (reason) {
      rejected.push({ path: f.path, reason });
      continue;
    }
    const bytes = Buffer.byteLength(f.content);
    total += bytes;
    if (bytes > LIMITS.maxFileBytes || total > LIMITS.maxTotalBytes) {
      rejected.push({ path: f.path, reason: 'too-large' });
      continue;
    }
    const target = path.join(root, f.path);
    const parent = path.dirname(target);
    // A directory on the way may be a symlink planted earlier: resolve the part that exists before creating any.
    if (!inside(root, await realpath(await nearestExisting(parent)))) {
      rejected.push({ path: f.path, reason: 'symlink-outside' });
      continue;
    }
    await mkdir(parent, { recursive: true });
    const existing = await lstat(target).catch(() => undefined);
    if (existing?.isSymbolicLink()) await rm(target);
    await writeFile(target, f.content);
  }
  for (const f of files.slice(LIMITS.maxFiles)) rejected.push({ path: f.path, reason: 'too-many-files' });
  return rejected;
}

/**
 * Checks a workspace an agent edited in place: symlinks that point outside it are removed, and the tree must
 * stay within the size bounds. Returns what was refused.
 */
export async function sanitizeWorkspace(workspace: string): Promise<FileRejection[]> {
  const root = await realpath(workspace);
  const rejected: FileRejection[] = [];
  let files = 0;
  let total = 0;
  const skipped = skippedDirs();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const rel = path.relative(root, full);
      if (entry.isSymbolicLink()) {
        const target = path.resolve(path.dirname(full), await readlink(full));
        if (!inside(root, target)) {
          await rm(full);
          rejected.push({ path: rel, reason: 'symlink-outside' });
        }
      } else if (entry.isDirectory()) {
        if (!skipped.has(entry.name)) await walk(full);
      } else if (entry.isFile()) {
        const size = (await lstat(full)).size;
        files++;
        total += size;
        if (size > LIMITS.maxFileBytes || total > LIMITS.maxTotalBytes || files > LIMITS.maxFiles) {
          await rm(full);
          rejected.push({ path: rel, reason: files > LIMITS.maxFiles ? 'too-many-files' : 'too-large' });
        }
      }
    }
  };
  await walk(root);
  return rejected;
}

/** The workspace's text files in the reply format, for an agent that has to be shown the project again. */
export async function projectAsFileBlocks(workspace: string, maxBytes = 256 * 1024): Promise<string> {
  const blocks: string[] = [];
  let total = 0;
  const skipped = skippedDirs();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !skipped.has(entry.name)) await walk(full);
      else if (entry.isFile()) {
        const content = await readFile(full);
        if (content.includes(0) || total + content.length > maxBytes) continue;
        total += content.length;
        blocks.push(`<file path="${path.relative(workspace, full)}">\n${content.toString('utf8').replace(/\n$/, '')}\n</file>`);
      }
    }
  };
  await walk(workspace);
  return blocks.join('\n');
}
