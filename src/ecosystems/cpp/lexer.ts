/**
 * A tokenizer/parser for the CMake language (cmake-language(7)): command invocations that may span
 * lines, `#` line comments, bracket comments `#[=[ ... ]=]`, quoted arguments with escapes and line
 * continuations, bracket arguments, unquoted arguments (split on unescaped `;` as CMake does when it
 * evaluates them) and nested parentheses. Variable references are kept as written, not evaluated.
 */
import { EnvproofError } from '../../core/errors.js';

export type ArgumentKind = 'quoted' | 'unquoted' | 'bracket';

export interface CmakeArgument {
  value: string;
  kind: ArgumentKind;
  line: number;
  column: number;
}

export interface CommandInvocation {
  /** Lower-cased: CMake command names are case-insensitive. */
  name: string;
  /** The name as written. */
  rawName: string;
  /** Arguments in order; nested parentheses are dropped (they only group `if()` conditions). */
  args: CmakeArgument[];
  line: number;
  column: number;
}

class Cursor {
  pos = 0;
  line = 1;
  column = 1;
  constructor(readonly text: string) {}
  get done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }
  next(): string {
    const ch = this.text[this.pos++] ?? '';
    if (ch === '\n') {
      this.line++;
      this.column = 1;
    } else {
      this.column++;
    }
    return ch;
  }
}

function parseError(file: string, line: number, column: number, what: string): EnvproofError {
  return new EnvproofError(
    `${file}:${line}:${column}: ${what}`,
    'Fix the CMake syntax at that position (CMake itself would refuse this file).',
  );
}

/** `[`, then `=`*, then `[`: returns the number of `=` or -1 when the cursor is not at a bracket opening. */
function bracketOpenLevel(c: Cursor, offset = 0): number {
  if (c.peek(offset) !== '[') return -1;
  let i = offset + 1;
  while (c.peek(i) === '=') i++;
  return c.peek(i) === '[' ? i - offset - 1 : -1;
}

/** Reads `[==[ ... ]==]` starting at the cursor; returns the content. */
function readBracket(c: Cursor, file: string, what: string, startLine = c.line, startColumn = c.column): string {
  const level = bracketOpenLevel(c);
  for (let i = 0; i < level + 2; i++) c.next();
  const close = `]${'='.repeat(level)}]`;
  const end = c.text.indexOf(close, c.pos);
  if (end < 0) throw parseError(file, startLine, startColumn, `unterminated ${what} (no closing "${close}")`);
  let content = c.text.slice(c.pos, end);
  while (c.pos < end + close.length) c.next();
  // A newline right after the opening bracket is not part of the content.
  if (content.startsWith('\r\n')) content = content.slice(2);
  else if (content.startsWith('\n')) content = content.slice(1);
  return content;
}

function skipLineComment(c: Cursor): void {
  while (!c.done && c.peek() !== '\n') c.next();
}

/** Skips whitespace, newlines and comments (line and bracket). */
function skipSeparation(c: Cursor, file: string): void {
  for (;;) {
    const ch = c.peek();
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n') {
      c.next();
    } else if (ch === '#') {
      if (bracketOpenLevel(c, 1) >= 0) {
        const { line, column } = c;
        c.next();
        readBracket(c, file, 'bracket comment', line, column);
      } else {
        skipLineComment(c);
      }
    } else {
      return;
    }
  }
}

function decodeEscape(c: Cursor, file: string): string {
  const line = c.line;
  const column = c.column;
  c.next(); // the backslash
  if (c.done) throw parseError(file, line, column, 'a backslash at the end of the file');
  const ch = c.next();
  switch (ch) {
    case 't':
      return '\t';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case ';':
      return '\\;'; // kept escaped so list splitting leaves it alone
    default:
      if (/[A-Za-z0-9]/.test(ch)) throw parseError(file, line, column, `invalid escape sequence "\\${ch}"`);
      return ch;
  }
}

function readQuoted(c: Cursor, file: string): string {
  const line = c.line;
  const column = c.column;
  c.next(); // opening quote
  let out = '';
  for (;;) {
    if (c.done) throw parseError(file, line, column, 'unterminated quoted argument (no closing ")');
    const ch = c.peek();
    if (ch === '"') {
      c.next();
      return out;
    }
    if (ch === '\\') {
      if (c.peek(1) === '\n') {
        c.next();
        c.next();
        continue;
      }
      if (c.peek(1) === '\r' && c.peek(2) === '\n') {
        c.next();
        c.next();
        c.next();
        continue;
      }
      out += decodeEscape(c, file);
      continue;
    }
    out += c.next();
  }
}

function readUnquoted(c: Cursor, file: string): string {
  let out = '';
  for (;;) {
    const ch = c.peek();
    if (ch === '' || /[\s()#]/.test(ch)) return out;
    if (ch === '\\') {
      out += decodeEscape(c, file);
    } else if (ch === '"') {
      // Legacy form `-Dx="a b"`: a quoted part inside an unquoted argument keeps its quotes.
      out += `"${readQuoted(c, file)}"`;
    } else {
      out += c.next();
    }
  }
}

/** Splits an evaluated unquoted argument into list elements at unescaped `;`, dropping empty ones. */
function splitList(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '\\' && value[i + 1] === ';') {
      current += ';';
      i++;
    } else if (ch === ';') {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts.filter((p) => p !== '');
}

function readArguments(c: Cursor, file: string, open: { line: number; column: number; name: string }): CmakeArgument[] {
  const args: CmakeArgument[] = [];
  const parens: { line: number; column: number }[] = [];
  for (;;) {
    skipSeparation(c, file);
    if (c.done) {
      const inner = parens.at(-1);
      if (inner) throw parseError(file, inner.line, inner.column, 'unbalanced parentheses: this "(" is never closed');
      throw parseError(file, open.line, open.column, `unbalanced parentheses: "${open.name}(" is never closed`);
    }
    const line = c.line;
    const column = c.column;
    const ch = c.peek();
    if (ch === '(') {
      parens.push({ line, column });
      c.next();
    } else if (ch === ')') {
      c.next();
      if (parens.pop() === undefined) return args;
    } else if (ch === '"') {
      args.push({ value: readQuoted(c, file).replace(/\\;/g, ';'), kind: 'quoted', line, column });
    } else if (bracketOpenLevel(c) >= 0) {
      args.push({ value: readBracket(c, file, 'bracket argument'), kind: 'bracket', line, column });
    } else {
      for (const value of splitList(readUnquoted(c, file))) args.push({ value, kind: 'unquoted', line, column });
    }
  }
}

/** Parses a whole CMake file. `file` is used in error messages (`file:line:column: ...`). */
export function parseCmake(text: string, file: string): CommandInvocation[] {
  const c = new Cursor(text.startsWith('\uFEFF') ? text.slice(1) : text);
  const commands: CommandInvocation[] = [];
  for (;;) {
    skipSeparation(c, file);
    if (c.done) return commands;
    const line = c.line;
    const column = c.column;
    let rawName = '';
    while (/[A-Za-z0-9_]/.test(c.peek())) rawName += c.next();
    if (!/^[A-Za-z_]/.test(rawName)) {
      const found = c.peek() === ')' ? 'unbalanced parentheses: a ")" without a matching "("' : `unexpected "${c.peek()}"`;
      throw parseError(file, c.line, c.column, `expected a command name; ${found}`);
    }
    while (c.peek() === ' ' || c.peek() === '\t') c.next();
    if (c.peek() !== '(') {
      throw parseError(file, c.line, c.column, `expected "(" after the command name "${rawName}"`);
    }
    c.next();
    const args = readArguments(c, file, { line, column, name: rawName });
    commands.push({ name: rawName.toLowerCase(), rawName, args, line, column });
  }
}
