/**
 * `envproof fix` for CMake: `find_package` commands of CMakeLists.txt edited in place, located with envproof's CMake
 * parser. A hidden library gets the `find_package` of the CMake package whose Find module searches for it (after
 * the last find_package), pinned `EXACT` to the upstream part of its Debian version; a pin puts `<version> EXACT`
 * after the package name; a removal deletes the command's own lines. Other kinds of declaration are not edited.
 */
import type { DeclaredResult } from '../../core/types.js';
import { locationsFromSources, sourceLocation, type EditOutcome, type ManifestEdit, type ManifestEditor, type ManifestLocation } from '../outputs.js';
import { EditSession, eolOf, indentAt, lineStart, nextLineStart, offsetOfLine, type TextEdit } from '../text-edits.js';
import { findModuleIndex } from './find-modules.js';
import { parseCmake, type CmakeArgument, type CommandInvocation } from './lexer.js';
import { CMAKE_MANIFEST } from './manifest.js';
import { cmakeName } from './names.js';

const VERSION_ARG = /^\d+(\.\d+)*(\.\.\.<?\d+(\.\d+)*)?$/;

/** `1:1.2.13.dfsg-1` → `1.2.13`: Debian's epoch, revision and repack suffix removed. */
export function upstreamVersion(debian: string): string | undefined {
  const m = /^(?:\d+:)?(\d+(?:\.\d+)*)/.exec(debian.replace(/-[^-]*$/, ''));
  return m?.[1];
}

function offsetOf(text: string, at: { line: number; column: number }): number {
  return offsetOfLine(text, at.line)! + at.column - 1;
}

/** Offset just past the `)` closing the command that starts at `start`, skipping quoted and bracket arguments and comments. */
export function commandEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = text.indexOf('(', start); i >= 0 && i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '[' && /^\[=*\[/.test(text.slice(i))) {
      const eq = /^\[(=*)\[/.exec(text.slice(i))![1]!;
      i = text.indexOf(`]${eq}]`, i) + eq.length + 1;
    } else if (c === '#') {
      const bracket = /^#\[(=*)\[/.exec(text.slice(i));
      i = bracket ? text.indexOf(`]${bracket[1]}]`, i) + bracket[1]!.length + 1 : nextLineStart(text, i) - 1;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The command with its own lines (and a comment after it) when nothing else shares them, else just the command. */
function wholeCommand(text: string, cmd: CommandInvocation): TextEdit {
  const start = offsetOf(text, cmd);
  const end = commandEnd(text, start);
  const from = lineStart(text, start);
  const to = nextLineStart(text, end);
  const alone = /^[ \t]*$/.test(text.slice(from, start)) && /^[ \t]*(#[^\n]*)?\r?\n?$/.test(text.slice(end, to));
  return alone ? { start: from, end: to, text: '' } : { start, end, text: '' };
}

function findPackageAt(text: string, file: string, line: number, name: string): CommandInvocation | undefined {
  return parseCmake(text, file).find((c) => c.name === 'find_package' && c.line === line && cmakeName(c.args[0]?.value ?? '') === name);
}

function argumentSpan(text: string, arg: CmakeArgument): { start: number; end: number } {
  const start = offsetOf(text, arg);
  return { start, end: start + (arg.kind === 'quoted' ? arg.value.length + 2 : arg.value.length) };
}

function pinEdit(text: string, cmd: CommandInvocation, version: string): TextEdit | string {
  const [name, second] = cmd.args;
  if (!name) return 'find_package without a package name';
  if (cmd.args.some((a) => a.value === 'EXACT')) return 'it is already EXACT';
  if (second && VERSION_ARG.test(second.value)) return { ...argumentSpan(text, second), text: `${version} EXACT` };
  const after = argumentSpan(text, name).end;
  return { start: after, end: after, text: ` ${version} EXACT` };
}

/** New find_package lines go after the last find_package of the top file, else after project(). */
function insertionPoint(text: string): { at: number; indent: string } {
  const commands = parseCmake(text, CMAKE_MANIFEST);
  const anchor = commands.filter((c) => c.name === 'find_package').at(-1) ?? commands.find((c) => c.name === 'project');
  if (!anchor) return { at: 0, indent: '' };
  const start = offsetOf(text, anchor);
  return { at: nextLineStart(text, commandEnd(text, start)), indent: indentAt(text, start) };
}

export const cmakeManifestEditor: ManifestEditor = {
  async locate(_projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>> {
    return locationsFromSources(declared);
  },

  async apply(projectDir: string, _declared: DeclaredResult, edits: readonly ManifestEdit[]): Promise<EditOutcome> {
    const session = new EditSession<ManifestEdit>(projectDir);
    const adds = edits.filter((e): e is Extract<ManifestEdit, { kind: 'add' }> => e.kind === 'add');
    if (adds.length) {
      const text = (await session.text(CMAKE_MANIFEST))!;
      const modules = await findModuleIndex();
      const { at, indent } = insertionPoint(text);
      const lines: string[] = [];
      const made: ManifestEdit[] = [];
      for (const add of adds) {
        const candidates = modules.get(add.name) ?? [];
        if (candidates.length !== 1) {
          session.refuse(add, candidates.length ? `several CMake packages search for lib${add.name}: ${candidates.join(', ')}` : `no CMake Find module searches for lib${add.name}; declare it by hand`);
          continue;
        }
        const version = upstreamVersion(add.version);
        lines.push(`${indent}find_package(${candidates[0]}${version ? ` ${version} EXACT` : ''} REQUIRED)  # added by envproof fix: lib${add.name} is loaded at run time`);
        made.push(add);
      }
      const eol = eolOf(text);
      const lead = at === text.length && !text.endsWith('\n') ? eol : '';
      made.forEach((m, i) => session.change(CMAKE_MANIFEST, i === 0 ? { start: at, end: at, text: `${lead}${lines.map((l) => `${l}${eol}`).join('')}` } : [], m));
    }
    for (const edit of edits) {
      if (edit.kind === 'add') continue;
      const where = sourceLocation(edit.dependency.source);
      const text = where && (await session.text(where.file));
      const cmd = where && text !== undefined ? findPackageAt(text, where.file, where.line!, edit.dependency.name) : undefined;
      if (!where || text === undefined || !cmd) {
        session.refuse(edit, `only find_package() in the project's CMake files is edited (${edit.dependency.id ?? edit.dependency.name})`);
        continue;
      }
      if (edit.kind === 'remove') {
        const raw = cmd.args[0]!.value;
        const quoted = raw.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        if (new RegExp(`\\b${quoted}::|\\$\\{${quoted}_`).test(text)) session.refuse(edit, `the build still uses ${raw}'s targets or variables`);
        else session.change(where.file, wholeCommand(text, cmd), edit);
      } else {
        const pin = pinEdit(text, cmd, edit.version);
        if (typeof pin === 'string') session.refuse(edit, pin);
        else session.change(where.file, pin, edit);
      }
    }
    return session.outcome();
  },
};
