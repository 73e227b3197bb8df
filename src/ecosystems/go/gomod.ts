/**
 * A go.mod parser (pure): the directives envproof reads — module, go, toolchain, require, replace, exclude — with
 * the line each came from. The syntax is the go command's: one directive per line, or a `verb ( ... )` block of
 * them; `//` comments; quoted ("…" or `…`) or bare tokens; `// indirect` as a require line's trailing comment.
 * Directives envproof does not need (retract, godebug, tool, ignore) are accepted and skipped; an unknown one is an
 * error, as it is for the go command.
 */
import { EnvproofError } from '../../core/errors.js';

export interface Requirement {
  path: string;
  version: string;
  indirect: boolean;
  line: number;
}

export interface ModuleVersion {
  path: string;
  /** Absent on the left of a replace that applies to every version, and for a directory replacement. */
  version?: string;
}

export interface Replacement {
  from: ModuleVersion;
  /** A module, or a directory (a path starting with `./`, `../` or `/`) holding one. */
  to: ModuleVersion & { directory: boolean };
  line: number;
}

export interface Exclusion extends ModuleVersion {
  version: string;
  line: number;
}

export interface GoMod {
  module: string;
  /** The `go` line: the language version the module needs (absent in very old files). */
  go?: string;
  toolchain?: string;
  require: Requirement[];
  replace: Replacement[];
  exclude: Exclusion[];
  /** The `require ( … )` blocks: the lines of their opening and closing parentheses (for `envproof fix`). */
  requireBlocks: { open: number; close: number }[];
}

const KNOWN = new Set(['module', 'go', 'toolchain', 'require', 'replace', 'exclude', 'retract', 'godebug', 'tool', 'ignore']);
const BLOCK_VERBS = new Set(['require', 'replace', 'exclude', 'retract', 'godebug', 'tool', 'ignore']);

interface Line {
  tokens: string[];
  comment: string;
  number: number;
}

/** Characters a module path may hold (the go command's rule, minus its finer checks of each element). */
const MODULE_PATH = /^[A-Za-z0-9.~_+-]+(?:\/[A-Za-z0-9.~_+-]+)*$/;
/** A canonical semantic version as go.mod writes it: v1.2.3, v1.2.3-pre, v0.0.0-20170915032832-14c0d48ead0c, +incompatible. */
export const MODULE_VERSION = /^v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export function isLocalPath(p: string): boolean {
  return p.startsWith('./') || p.startsWith('../') || p.startsWith('/') || p === '.' || p === '..';
}

class GoModSyntaxError extends EnvproofError {}

function fail(file: string, line: number, message: string): never {
  throw new GoModSyntaxError(`${file}:${line}: ${message}`, 'fix go.mod (`go mod edit -fmt` rewrites it in the canonical form)');
}

/** One line's tokens and trailing comment. */
function tokenize(text: string, number: number, file: string): Line {
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (text.startsWith('//', i)) {
      return { tokens, comment: text.slice(i + 2).trim(), number };
    } else if (c === '(' || c === ')') {
      tokens.push(c);
      i++;
    } else if (c === '"' || c === '`') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c) {
        if (c === '"' && text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
        j++;
      }
      if (j >= text.length) fail(file, number, 'unterminated quoted string');
      tokens.push(value);
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && !/[\s()"`]/.test(text[j]!) && !text.startsWith('//', j)) j++;
      tokens.push(text.slice(i, j));
      i = j;
    }
  }
  return { tokens, comment: '', number };
}

function isIndirect(comment: string): boolean {
  return comment === 'indirect' || comment.startsWith('indirect;');
}

function checkPath(file: string, line: number, p: string): string {
  if (!MODULE_PATH.test(p)) fail(file, line, `malformed module path "${p}"`);
  return p;
}

function requirement(file: string, l: Line, args: string[]): Requirement {
  if (args.length !== 2) fail(file, l.number, 'usage: require module/path v1.2.3');
  return { path: checkPath(file, l.number, args[0]!), version: args[1]!, indirect: isIndirect(l.comment), line: l.number };
}

function replacement(file: string, l: Line, args: string[]): Replacement {
  const arrow = args.indexOf('=>');
  if (arrow < 1 || arrow > 2 || args.length - arrow - 1 < 1 || args.length - arrow - 1 > 2) {
    fail(file, l.number, 'usage: replace module/path [v1.2.3] => other/module v1.4.5 | ./local/directory');
  }
  const from: ModuleVersion = { path: checkPath(file, l.number, args[0]!), ...(arrow === 2 ? { version: args[1]! } : {}) };
  const target = args[arrow + 1]!;
  const targetVersion = args[arrow + 2];
  if (isLocalPath(target)) {
    if (targetVersion !== undefined) fail(file, l.number, `replacement directory ${target} cannot have a version`);
    return { from, to: { path: target, directory: true }, line: l.number };
  }
  if (targetVersion === undefined) fail(file, l.number, `replacement module ${target} needs a version (a directory replacement starts with ./ or ../)`);
  return { from, to: { path: checkPath(file, l.number, target), version: targetVersion, directory: false }, line: l.number };
}

type Parsed = Partial<GoMod> & Pick<GoMod, 'require' | 'replace' | 'exclude' | 'requireBlocks'>;

function directive(mod: Parsed, file: string, verb: string, args: string[], l: Line): void {
  switch (verb) {
    case 'module':
      if (mod.module !== undefined) fail(file, l.number, 'repeated module statement');
      if (args.length !== 1) fail(file, l.number, 'usage: module module/path');
      mod.module = checkPath(file, l.number, args[0]!);
      return;
    case 'go':
      if (args.length !== 1 || !/^\d+(\.\d+){0,2}((rc|beta)\d+)?$/.test(args[0]!)) fail(file, l.number, 'usage: go 1.23 (or 1.23.4)');
      mod.go = args[0]!;
      return;
    case 'toolchain':
      if (args.length !== 1) fail(file, l.number, 'usage: toolchain go1.23.4');
      mod.toolchain = args[0]!;
      return;
    case 'require':
      mod.require.push(requirement(file, l, args));
      return;
    case 'replace':
      mod.replace.push(replacement(file, l, args));
      return;
    case 'exclude':
      if (args.length !== 2) fail(file, l.number, 'usage: exclude module/path v1.2.3');
      mod.exclude.push({ path: checkPath(file, l.number, args[0]!), version: args[1]!, line: l.number });
      return;
    default:
      return; // retract, godebug, tool, ignore: nothing envproof reads
  }
}

/** Parses go.mod text; `file` names it in errors (`go.mod:12: ...`). */
export function parseGoMod(text: string, file = 'go.mod'): GoMod {
  const mod: Parsed = { require: [], replace: [], exclude: [], requireBlocks: [] };
  let block: { verb: string; line: number } | undefined;
  for (const [i, raw] of text.split('\n').entries()) {
    const l = tokenize(raw, i + 1, file);
    if (l.tokens.length === 0) continue;
    if (block) {
      if (l.tokens.length === 1 && l.tokens[0] === ')') {
        if (block.verb === 'require') mod.requireBlocks.push({ open: block.line, close: l.number });
        block = undefined;
        continue;
      }
      if (l.tokens.includes('(') || l.tokens.includes(')')) fail(file, l.number, `unexpected parenthesis inside the ${block.verb} block`);
      directive(mod, file, block.verb, l.tokens, l);
      continue;
    }
    const [verb, ...args] = l.tokens as [string, ...string[]];
    if (!KNOWN.has(verb)) fail(file, l.number, `unknown directive: ${verb}`);
    if (args[0] === '(') {
      if (!BLOCK_VERBS.has(verb)) fail(file, l.number, `${verb} cannot be a block`);
      if (args.length === 2 && args[1] === ')') continue; // an empty block on one line
      if (args.length !== 1) fail(file, l.number, `a ${verb} block must end its first line after "("`);
      block = { verb, line: l.number };
      continue;
    }
    if (args.includes('(') || args.includes(')')) fail(file, l.number, 'unexpected parenthesis');
    directive(mod, file, verb, args, l);
  }
  if (block) fail(file, block.line, `the ${block.verb} block opened here is never closed with ")"`);
  if (mod.module === undefined) {
    throw new GoModSyntaxError(`${file}: no module declaration`, 'go.mod starts with `module <module path>`, e.g. `module example.com/hello`');
  }
  return mod as GoMod;
}
