/**
 * Which test files a run takes, and in what order. A file is in the quick tier when its first line is the marker
 * comment below: it needs no root filesystem and no package download (docs/testing.md says what that allows).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const QUICK_MARKER = '// tier: quick';

/** Every `*.test.ts` under `dir`, as paths relative to `root`, sorted. */
export function testFiles(root: string, dir = 'test'): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((e) => {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : testFiles(root, rel);
      return e.name.endsWith('.test.ts') ? [rel] : [];
    })
    .sort();
}

export function isQuick(source: string): boolean {
  return source.split('\n', 1)[0]!.trim() === QUICK_MARKER;
}

export function quickFiles(root: string, files: readonly string[]): string[] {
  return files.filter((f) => isQuick(readFileSync(path.join(root, f), 'utf8')));
}

/**
 * Longest first, by the last recorded wall time of each file, so that no long file starts near the end and sets the
 * total; files without a recorded time (new ones) count as the longest, then alphabetical order.
 */
export function longestFirst(files: readonly string[], seconds: Readonly<Record<string, number>>): string[] {
  const known = (f: string) => seconds[f] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => known(b) - known(a) || a.localeCompare(b));
}
