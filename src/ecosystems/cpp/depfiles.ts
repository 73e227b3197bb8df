/**
 * The build-time file set: the headers every compiled object depended on, from the compiler's own
 * dependency output (`-MD`, which CMake's Makefile generator asks GCC/Clang for: `<object>.d` beside
 * each object), plus the files on the project's link lines (static archives and link-time libraries).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Codemodel } from './codemodel.js';
import { readProjectFile } from '../../core/safe-read.js';

/** Prerequisites of a Makefile-syntax dependency file; relative paths are resolved against `baseDir`. */
export function parseDepfile(text: string, baseDir: string): string[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  const files: string[] = [];
  for (const rule of joined.split('\n')) {
    // The target ends at the first `: ` (a drive-letter colon cannot occur on Linux).
    const colon = rule.search(/:(\s|$)/);
    if (colon < 0) continue;
    const prereqs = rule.slice(colon + 1);
    let current = '';
    for (let i = 0; i < prereqs.length; i++) {
      const ch = prereqs[i] ?? '';
      if (ch === '\\' && prereqs[i + 1] === ' ') {
        current += ' ';
        i++;
      } else if (ch === '$' && prereqs[i + 1] === '$') {
        current += '$';
        i++;
      } else if (/\s/.test(ch)) {
        if (current) files.push(current);
        current = '';
      } else {
        current += ch;
      }
    }
    if (current) files.push(current);
  }
  return files.map((f) => path.posix.resolve(baseDir, f));
}

async function findDepfiles(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) await findDepfiles(full, out);
    else if (e.name.endsWith('.o.d') || e.name.endsWith('.obj.d')) out.push(full);
  }
}

/** A build-time file and the project target that compiled it (a header) or linked it (a library). */
export interface BuildFile {
  file: string;
  target: string;
}

/** `…/CMakeFiles/<target>.dir/…`: the target an object (and its dependency file) belongs to. */
function targetOfDepfile(file: string): string | undefined {
  return /\/CMakeFiles\/([^/]+)\.dir\//.exec(file)?.[1];
}

/**
 * Every header compiled into the project's own targets and every library file on their link lines, as seen
 * inside the sandbox, each with its target. Objects of fetched dependencies (`_deps/`) are left out: what *they*
 * include is their business, what the project links from them is not.
 */
export async function buildTimeFiles(hostBuildDir: string, insideBuildDir: string, model: Codemodel): Promise<BuildFile[]> {
  const files = new Map<string, BuildFile>();
  const add = (file: string, target: string) => {
    const key = `${target}\0${file}`;
    if (!files.has(key)) files.set(key, { file, target });
  };
  const own = model.targets.filter((t) => !t.external);
  const ownNames = new Set(own.map((t) => t.name));
  for (const subdir of new Set(own.map((t) => t.buildSubdir))) {
    const depfiles: string[] = [];
    await findDepfiles(path.join(hostBuildDir, subdir, 'CMakeFiles'), depfiles);
    // Relative paths in a depfile are relative to the directory the compiler ran in: the target's build directory.
    const base = path.posix.resolve(insideBuildDir, subdir);
    for (const file of depfiles) {
      const target = targetOfDepfile(file);
      if (!target || !ownNames.has(target)) continue;
      for (const f of parseDepfile(await readProjectFile(hostBuildDir, file, 'utf8'), base)) add(f, target);
    }
  }
  for (const t of own) {
    // Link lines are written relative to the target's build directory, like the compiler's working directory.
    const base = path.posix.resolve(insideBuildDir, t.buildSubdir);
    for (const lib of t.linkLibraries) {
      if (!lib.startsWith('-')) add(path.posix.resolve(base, lib), t.name);
    }
  }
  return [...files.values()];
}
