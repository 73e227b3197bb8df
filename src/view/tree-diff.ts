/**
 * What changed from one attempt's project tree to the next: files added, removed and modified, with the changed
 * lines of text files (unified hunks). Pure over the stored entries and blobs.
 */
import { structuredPatch, type StructuredPatchHunk } from 'diff';
import type { TreeEntry } from '../store/types.js';

/** Larger files are said to differ, not diffed line by line (a diff is quadratic at worst). */
export const MAX_DIFF_BYTES = 256 * 1024;

export interface StoredTree {
  entries: readonly TreeEntry[];
  blob(hash: string): Buffer;
}

/**
 * A file's content as text, or undefined when it is not UTF-8 text (a NUL byte, or invalid UTF-8). `cut`: the
 * content is a file's beginning, so a character split at its end is not an error.
 */
export function textOf(content: Buffer, cut = false): string | undefined {
  if (content.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(content, { stream: cut });
  } catch {
    return undefined;
  }
}

/** What an entry shows as text: a symlink as its target. */
function shownText(tree: StoredTree, e: TreeEntry): string | undefined {
  const content = tree.blob(e.blob);
  return e.kind === 'symlink' ? `→ ${content.toString('utf8')}\n` : textOf(content);
}

export interface FileChange {
  path: string;
  change: 'added' | 'removed' | 'modified';
  /** Why no hunks are shown: the file is not text, or too large. */
  unshown?: 'binary' | 'too-large';
  /** The executable bit or the kind (file, symlink) changed. */
  modeChange?: string;
  hunks: StructuredPatchHunk[];
}

function describe(e: TreeEntry): string {
  return e.kind === 'symlink' ? 'symlink' : e.executable ? 'executable file' : 'file';
}

export function treeDiff(before: StoredTree, after: StoredTree): FileChange[] {
  const old = new Map(before.entries.map((e) => [e.path, e]));
  const now = new Map(after.entries.map((e) => [e.path, e]));
  const paths = [...new Set([...old.keys(), ...now.keys()])].sort();
  const changes: FileChange[] = [];
  for (const path of paths) {
    const a = old.get(path);
    const b = now.get(path);
    if (a && b && a.blob === b.blob && describe(a) === describe(b)) continue;
    const change = !a ? 'added' : !b ? 'removed' : 'modified';
    const modeChange = a && b && describe(a) !== describe(b) ? `${describe(a)} → ${describe(b)}` : undefined;
    const base = { path, change, ...(modeChange ? { modeChange } : {}) } as const;
    const size = Math.max(a ? before.blob(a.blob).length : 0, b ? after.blob(b.blob).length : 0);
    if (size > MAX_DIFF_BYTES) {
      changes.push({ ...base, unshown: 'too-large', hunks: [] });
      continue;
    }
    const oldText = a ? shownText(before, a) : '';
    const newText = b ? shownText(after, b) : '';
    if (oldText === undefined || newText === undefined) {
      changes.push({ ...base, unshown: 'binary', hunks: [] });
      continue;
    }
    changes.push({ ...base, hunks: structuredPatch(path, path, oldText, newText, undefined, undefined, { context: 3 }).hunks });
  }
  return changes;
}
