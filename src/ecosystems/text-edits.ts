/**
 * Offset-based text splicing for the manifest editors: every editor finds the exact byte ranges to change and
 * leaves everything else as it was, so comments, order, spacing and line endings survive an edit.
 */
import path from 'node:path';
import { readProjectFileIfExists } from '../core/safe-read.js';

export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits (in any order); an insertion is an edit with start = end. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let limit = Infinity;
  for (const e of sorted) {
    if (e.end > limit) throw new Error(`overlapping text edits at ${e.start}-${e.end}`);
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    limit = e.start;
  }
  return out;
}

/** The file's line ending: CRLF when its first line break is one, else LF. */
export function eolOf(text: string): string {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}

/** Offset of the start of the line holding `offset`. */
export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Offset just past the line break ending the line holding `offset` (the text's length on the last line). */
export function nextLineStart(text: string, offset: number): number {
  const i = text.indexOf('\n', offset);
  return i < 0 ? text.length : i + 1;
}

/** 1-based line number of an offset. */
export function lineNumber(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Offset where 1-based line `line` starts, or undefined past the end. */
export function offsetOfLine(text: string, line: number): number | undefined {
  let at = 0;
  for (let n = 1; n < line; n++) {
    const i = text.indexOf('\n', at);
    if (i < 0) return undefined;
    at = i + 1;
  }
  return at;
}

/** The leading spaces and tabs of the line holding `offset`. */
export function indentAt(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** An insertion of a whole line at the end of the text, adding the missing line break before it. */
export function appendLine(text: string, line: string): TextEdit {
  const eol = eolOf(text);
  const needsBreak = text.length > 0 && !text.endsWith('\n');
  return { start: text.length, end: text.length, text: `${needsBreak ? eol : ''}${line}${eol}` };
}

/**
 * A manifest editor's work in progress: each file read once, its edits collected, applied at the end. `settle()`
 * applies the edits collected so far, so that later edits are found in the text as it will be (an addition after
 * the last item of a list must not anchor on an item being removed).
 */
export class EditSession<Edit> {
  private readonly files = new Map<string, { before: string; current: string; edits: TextEdit[] }>();
  readonly applied: Edit[] = [];
  readonly refused: { edit: Edit; reason: string }[] = [];

  constructor(private readonly projectDir: string) {}

  /** The text of a project file (relative path), with the settled edits; files outside the project are never edited. */
  async text(file: string): Promise<string | undefined> {
    const known = this.files.get(file);
    if (known) return known.current;
    if (path.isAbsolute(file) || file.split('/').includes('..')) return undefined;
    const before = await readProjectFileIfExists(this.projectDir, file);
    if (before !== undefined) this.files.set(file, { before, current: before, edits: [] });
    return before;
  }

  /** Records `edits` to `file` (already read with text(), offsets in that text) as the making of `done`. */
  change(file: string, edits: TextEdit | readonly TextEdit[], done: Edit): void {
    this.files.get(file)!.edits.push(...(Array.isArray(edits) ? edits : [edits as TextEdit]));
    this.applied.push(done);
  }

  refuse(edit: Edit, reason: string): void {
    this.refused.push({ edit, reason });
  }

  /** Applies the edits recorded so far; text() then returns the edited texts. */
  settle(): void {
    for (const f of this.files.values()) {
      f.current = applyTextEdits(f.current, f.edits);
      f.edits = [];
    }
  }

  outcome(): { changes: { file: string; before: string; after: string }[]; applied: Edit[]; refused: { edit: Edit; reason: string }[] } {
    this.settle();
    const changes = [...this.files.entries()].filter(([, f]) => f.current !== f.before).map(([file, f]) => ({ file, before: f.before, after: f.current }));
    return { changes, applied: this.applied, refused: this.refused };
  }
}
