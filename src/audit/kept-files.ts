/**
 * Tools name files in their messages ("A complete log of this run can be found in: /envproof/cache/npm/_logs/…",
 * CMake's "See also …/CMakeError.log") by the path the sandboxed program saw. Those paths mean nothing to the
 * user: they are inside the sandbox, or in the work directory, which is removed when the audit ends. The files
 * they name are copied to `$ENVPROOF_CACHE_DIR/logs/` and the message says where; what cannot be copied (a
 * directory, a file already gone) is pointed to `--keep`.
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { readProjectFile } from '../core/safe-read.js';
import { CACHE_INSIDE } from '../sandbox/paths.js';
import type { Sandbox } from '../sandbox/types.js';

const MAX_FILES = 10;
const MAX_BYTES = 16 * 1024 ** 2;
/** Older copies are removed beyond this many audits' worth. */
const KEPT_AUDITS = 100;

export function keptLogsRoot(): string {
  return path.join(cacheRoot(), 'logs');
}

/** Absolute paths in `text` that lie in the sandbox's work directory or its package caches, in order, once each. */
export function sandboxPathsIn(text: string, sandbox: Pick<Sandbox, 'workDir'>): string[] {
  const roots = [sandbox.workDir, CACHE_INSIDE];
  const found = [...text.matchAll(/\/[\w.+@%=,:~-]+(?:\/[\w.+@%=,:~-]+)*/g)].map((m) => m[0].replace(/[.,:]+$/, ''));
  return [...new Set(found.filter((p) => roots.some((r) => p === r || p.startsWith(`${r}/`))))];
}

async function pruneOld(): Promise<void> {
  const dirs = (await readdir(keptLogsRoot()).catch(() => [] as string[])).sort();
  for (const d of dirs.slice(0, Math.max(0, dirs.length - KEPT_AUDITS))) await rm(path.join(keptLogsRoot(), d), { recursive: true, force: true });
}

/**
 * A regular file of at most MAX_BYTES at `inside`, read without leaving `rootInside` (the sandboxed program wrote
 * there and may have put a link to a host file in its place); undefined for anything else.
 */
async function readSandboxFile(sandbox: Sandbox, inside: string, rootInside: string): Promise<Buffer | undefined> {
  const host = sandbox.toHost(inside);
  const root = sandbox.toHost(rootInside);
  const st = host ? await lstat(host).catch(() => null) : null;
  if (!host || !root || !st?.isFile() || st.size > MAX_BYTES) return undefined;
  return readProjectFile(root, host).catch(() => undefined);
}

/**
 * Copies the files `text` names inside the sandbox to a directory that survives the audit; returns one line per
 * path saying where it is now, or that `--keep` keeps it. Paths in the work directory need nothing with `--keep`.
 */
export async function keepNamedFiles(text: string, sandbox: Sandbox, keepWorkDir: boolean): Promise<string[]> {
  const lines: string[] = [];
  let target: string | undefined;
  let copies = 0;
  for (const inside of sandboxPathsIn(text, sandbox).slice(0, MAX_FILES)) {
    const inWorkDir = inside === sandbox.workDir || inside.startsWith(`${sandbox.workDir}/`);
    if (inWorkDir && keepWorkDir) continue;
    const content = await readSandboxFile(sandbox, inside, inWorkDir ? sandbox.workDir : CACHE_INSIDE);
    if (content) {
      target ??= path.join(keptLogsRoot(), `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 6)}`);
      await mkdir(target, { recursive: true });
      const copy = path.join(target, `${++copies}-${path.basename(inside)}`);
      await writeFile(copy, content);
      lines.push(`${inside} is kept as ${copy}`);
    } else if (inWorkDir) {
      lines.push(`${inside} is in the work directory, which is removed when the audit ends: run again with --keep to look at it`);
    }
  }
  if (target) await pruneOld();
  return lines;
}
