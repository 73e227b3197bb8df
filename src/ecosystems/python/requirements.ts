/**
 * pip's requirements-file format: logical lines (continuations, comments), options, and the tree of
 * `-r` includes and `-c` constraint files, read the way pip reads them.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Dependency, SkippedEntry } from '../../core/types.js';
import type { MarkerEnvironment } from './markers.js';
import { redactCredentials, skippedEntry } from './pep508.js';
import { interpretTarget } from './pip-requirement.js';
import { readManifestText } from './read-manifest.js';

/** pip recurses without limit; envproof stops here so a generated chain cannot run away. */
export const MAX_INCLUDE_DEPTH = 50;

export interface LogicalLine {
  /** 1-based number of the first physical line. */
  line: number;
  text: string;
}

/** The line breaks of Python's str.splitlines(), which pip splits files with. */
const LINE_BREAK_RE = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;
const COMMENT_LINE_RE = /^\s*#/;
/** A comment starts at the beginning of a line or after whitespace, so `url#egg=name` keeps its fragment. */
const COMMENT_RE = /(^|\s+)#.*$/;

/**
 * Joins `\`-continued lines (a comment line ends a continuation and never continues one), then strips
 * comments and blank lines.
 */
export function logicalLines(text: string): LogicalLine[] {
  const joined: LogicalLine[] = [];
  let pending: string[] = [];
  let first = 0;
  text.split(LINE_BREAK_RE).forEach((physical, i) => {
    const isComment = COMMENT_LINE_RE.test(physical);
    if (physical.endsWith('\\') && !isComment) {
      if (pending.length === 0) first = i + 1;
      // pip strips every backslash at either end of a continued line.
      pending.push(physical.replace(/^\\+|\\+$/g, ''));
      return;
    }
    // A leading space keeps a comment line matching COMMENT_RE once it is appended to a continuation.
    const piece = isComment ? ` ${physical}` : physical;
    if (pending.length > 0) {
      joined.push({ line: first, text: pending.join('') + piece });
      pending = [];
    } else {
      joined.push({ line: i + 1, text: piece });
    }
  });
  if (pending.length > 0) joined.push({ line: first, text: pending.join('') });
  return joined
    .map((l) => ({ line: l.line, text: l.text.replace(COMMENT_RE, '').trim() }))
    .filter((l) => l.text !== '');
}

type OptionRole = 'requirement' | 'constraint' | 'editable' | 'global' | 'per-requirement';

const OPTIONS: Record<string, { role: OptionRole; takesValue: boolean }> = {
  '-r': { role: 'requirement', takesValue: true },
  '--requirement': { role: 'requirement', takesValue: true },
  '-c': { role: 'constraint', takesValue: true },
  '--constraint': { role: 'constraint', takesValue: true },
  '-e': { role: 'editable', takesValue: true },
  '--editable': { role: 'editable', takesValue: true },
  '-i': { role: 'global', takesValue: true },
  '--index-url': { role: 'global', takesValue: true },
  '--extra-index-url': { role: 'global', takesValue: true },
  '-f': { role: 'global', takesValue: true },
  '--find-links': { role: 'global', takesValue: true },
  '--no-binary': { role: 'global', takesValue: true },
  '--only-binary': { role: 'global', takesValue: true },
  '--trusted-host': { role: 'global', takesValue: true },
  '--use-feature': { role: 'global', takesValue: true },
  '--no-index': { role: 'global', takesValue: false },
  '--pre': { role: 'global', takesValue: false },
  '--prefer-binary': { role: 'global', takesValue: false },
  '--require-hashes': { role: 'global', takesValue: false },
  '--hash': { role: 'per-requirement', takesValue: true },
  '--config-settings': { role: 'per-requirement', takesValue: true },
  '-C': { role: 'per-requirement', takesValue: true },
  '--global-option': { role: 'per-requirement', takesValue: true },
  '--install-option': { role: 'per-requirement', takesValue: true },
};

export type LineItem =
  | { kind: 'requirement'; text: string; editable: boolean }
  | { kind: 'include'; target: string; constraint: boolean; raw: string }
  | { kind: 'global-option'; option: string; value?: string }
  | { kind: 'bad-option'; raw: string; detail: string };

/** Whitespace-separated words with shell-style quotes, as pip splits the options part of a line. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g)) words.push(m[0].replace(/'([^']*)'|"([^"]*)"/g, '$1$2'));
  return words;
}

function parseOptions(words: string[]): LineItem[] {
  const items: LineItem[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    // `--long=value`, `--long value`, `-xvalue`, `-x value`.
    const flag = eq > 0 ? word.slice(0, eq) : word.startsWith('--') ? word : word.slice(0, 2);
    const attached = eq > 0 ? word.slice(eq + 1) : !word.startsWith('--') && word.length > 2 ? word.slice(2) : undefined;
    const spec = OPTIONS[flag];
    if (!spec) {
      items.push({ kind: 'bad-option', raw: word, detail: `unknown option ${flag}` });
      continue;
    }
    let value: string | undefined;
    if (spec.takesValue) {
      value = attached ?? words[++i];
      if (value === undefined) {
        items.push({ kind: 'bad-option', raw: word, detail: `${flag} needs a value` });
        continue;
      }
    } else if (attached !== undefined) {
      items.push({ kind: 'bad-option', raw: word, detail: `${flag} takes no value` });
      continue;
    }
    const raw = value === undefined || attached !== undefined ? word : `${word} ${value}`;
    if (spec.role === 'requirement' || spec.role === 'constraint') {
      items.push({ kind: 'include', target: value!, constraint: spec.role === 'constraint', raw });
    } else if (spec.role === 'editable') {
      items.push({ kind: 'requirement', text: value!, editable: true });
    } else if (spec.role === 'global') {
      items.push({ kind: 'global-option', option: flag, value });
    }
  }
  return items;
}

/**
 * What one logical line says. As in pip, the words before the first one starting with `-` are the
 * requirement (markers may contain spaces and quotes), the rest are options; a requirement's own
 * options (`--hash`, ...) do not change what it declares.
 */
export function classifyLine(text: string): LineItem[] {
  const words = text.split(' ');
  const firstOption = words.findIndex((w) => w.startsWith('-'));
  const args = (firstOption < 0 ? words : words.slice(0, firstOption)).join(' ').trim();
  if (args) return [{ kind: 'requirement', text: args, editable: false }];
  return parseOptions(shellWords(words.slice(firstOption).join(' ')));
}

export interface RequirementsContext {
  projectDir: string;
  markerEnv: MarkerEnvironment;
}

export interface RequirementsResult {
  /** In pip's reading order (includes expanded in place); duplicates are kept. */
  declared: Dependency[];
  constraints: Dependency[];
  skipped: SkippedEntry[];
  notes: string[];
}

class RequirementsReader {
  readonly result: RequirementsResult = { declared: [], constraints: [], skipped: [], notes: [] };
  /** Files already read, per kind: a file included twice (not in a cycle) is read once. */
  private readonly seen = new Set<string>();

  constructor(private readonly ctx: RequirementsContext) {}

  /** Project-relative path for files inside the project, the absolute path otherwise. */
  label(file: string): string {
    const rel = path.relative(this.ctx.projectDir, file);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
  }

  /** `chain` holds the real paths of the files currently being read, outermost first. */
  async readFile(file: string, constraint: boolean, chain: string[]): Promise<void> {
    const real = await realpath(file).catch(() => path.resolve(file));
    this.seen.add(`${constraint}:${real}`);
    const label = this.label(file);
    const text = await readManifestText(file, label, this.ctx.projectDir);
    for (const line of logicalLines(text)) {
      const source = `${label}:${line.line}`;
      for (const item of classifyLine(line.text)) await this.item(item, file, source, constraint, [...chain, real]);
    }
  }

  private async item(item: LineItem, file: string, source: string, constraint: boolean, chain: string[]): Promise<void> {
    switch (item.kind) {
      case 'requirement': {
        const r = await interpretTarget({ text: item.text, editable: item.editable, source }, this.ctx);
        if (r.kind === 'skipped') this.result.skipped.push(r.entry);
        else (constraint ? this.result.constraints : this.result.declared).push(r.dependency);
        return;
      }
      case 'include':
        return this.include(item, file, source, chain);
      case 'global-option': {
        const value = item.value === undefined ? '' : ` ${redactCredentials(item.value)}`;
        this.result.notes.push(`${source}: pip option ${item.option}${value} ignored`);
        return;
      }
      case 'bad-option':
        this.result.skipped.push(skippedEntry(item.raw, 'unsupported-syntax', source, item.detail));
        return;
    }
  }

  private async include(item: Extract<LineItem, { kind: 'include' }>, file: string, source: string, chain: string[]): Promise<void> {
    const skip = (reason: SkippedEntry['reason'], detail: string) => {
      this.result.skipped.push(skippedEntry(item.raw, reason, source, detail));
    };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(item.target)) return skip('unsupported-syntax', 'remote requirements files are not fetched');
    // Nested files are relative to the file that names them; absolute paths are read wherever they point, as pip does.
    const target = path.resolve(path.dirname(file), item.target);
    const resolved = await realpath(target).then(
      (real) => ({ real }),
      (err: NodeJS.ErrnoException) => ({ error: err.code === 'ENOENT' ? 'does not exist' : `cannot be resolved (${err.code ?? err.message})` }),
    );
    if ('error' in resolved) return skip('include-missing', `${this.label(target)} ${resolved.error}`);
    const { real } = resolved;
    if (chain.includes(real)) {
      const cycle = [...chain.slice(chain.indexOf(real)), real].map((p) => this.label(p));
      return skip('include-cycle', cycle.join(' -> '));
    }
    if (chain.length > MAX_INCLUDE_DEPTH) {
      return skip('unsupported-syntax', `includes nested more than ${MAX_INCLUDE_DEPTH} deep; not followed`);
    }
    if (this.seen.has(`${item.constraint}:${real}`)) {
      this.result.notes.push(`${source}: ${this.label(target)} was already read; not read again`);
      return;
    }
    await this.readFile(target, item.constraint, chain);
  }
}

/**
 * Reads a requirements file and everything it includes. Requirements (including those of `-r` files)
 * are declarations; entries of `-c` files are constraints only. Unreadable or binary files throw.
 */
export async function readRequirements(file: string, ctx: RequirementsContext): Promise<RequirementsResult> {
  const reader = new RequirementsReader(ctx);
  await reader.readFile(file, false, []);
  return reader.result;
}
