/**
 * Which CMake package provides a library: read from CMake's own Find modules (`Find<Package>.cmake` in CMake's
 * Modules directory), parsed with envproof's CMake parser: the names each module's `find_library(... NAMES ...)`
 * calls and `set(<X>_NAMES ...)` lists search for. `z` → ZLIB, `ssl` → OpenSSL, `curl` → CURL.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../../core/process.js';
import { parseCmake } from './lexer.js';

const STOP = /^(HINTS|PATHS|PATH_SUFFIXES|NAMES_PER_DIR|DOC|REQUIRED|NO_\w+|ENV|REGISTRY_VIEW|VALIDATOR|CMAKE_FIND_ROOT_PATH_BOTH|ONLY_CMAKE_FIND_ROOT_PATH)$/;

/** Library names a Find module searches for. */
export function libraryNamesOf(text: string, file: string): string[] {
  const names = new Set<string>();
  for (const cmd of parseCmake(text, file)) {
    const values = cmd.args.map((a) => a.value);
    let from = -1;
    if (cmd.name === 'find_library') from = values.indexOf('NAMES') + 1 || 2;
    else if (cmd.name === 'set' && /_NAMES$/.test(values[0] ?? '')) from = 1;
    if (from <= 0) continue;
    for (const v of values.slice(from)) {
      if (STOP.test(v)) break;
      if (!v.includes('$') && /^[\w.+-]+$/.test(v)) names.add(v.replace(/^lib/, ''));
    }
  }
  return [...names];
}

/** CMake's root directory (CMAKE_ROOT), asked of the cmake on the PATH. */
export async function cmakeRoot(): Promise<string | undefined> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'envproof-cmake-'));
  try {
    await writeFile(path.join(dir, 'root.cmake'), 'message("${CMAKE_ROOT}")\n');
    const r = await runProcess(['cmake', '-P', path.join(dir, 'root.cmake')], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 30_000 });
    return r.exitCode === 0 ? r.stderr.trim() || undefined : undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Library name → the Find modules that search for it. */
export async function findModuleIndex(): Promise<Map<string, string[]>> {
  const index = new Map<string, string[]>();
  const root = await cmakeRoot();
  if (!root) return index;
  const modules = path.join(root, 'Modules');
  for (const file of (await readdir(modules).catch(() => [] as string[])).filter((f) => /^Find\w+\.cmake$/.test(f)).sort()) {
    let names: string[];
    try {
      names = libraryNamesOf(await readFile(path.join(modules, file), 'utf8'), file);
    } catch {
      continue; // a module envproof's parser cannot read tells nothing
    }
    const pkg = file.slice(4, -'.cmake'.length);
    for (const n of names) index.set(n, [...(index.get(n) ?? []), pkg]);
  }
  return index;
}
