/**
 * `envproof fix` for Go: go.mod's require lines edited in place, located with envproof's go.mod parser. A hidden
 * module is declared at the version that was built: a require line that already names it as `// indirect` (the go
 * command wrote it, the author did not) loses that marker, any other goes into the first require block, where
 * alphabetical order puts it (as the go command sorts them), else on a `require` line of its own at the end. A pin
 * replaces a non-canonical version (a branch, a commit) by the version the go command resolved; a removal deletes
 * the require line and the comment lines directly above it (as `go mod edit -droprequire` does). Afterwards the go
 * command brings go.sum up to date (refresh).
 */
import { existsSync } from 'node:fs';
import { readProjectFile } from '../../core/safe-read.js';
import { writeProjectFile } from '../../core/safe-write.js';
import path from 'node:path';
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { DeclaredResult, Dependency } from '../../core/types.js';
import { locationsFromSources, sourceLocation, type EditOutcome, type ManifestEdit, type ManifestEditor, type ManifestLocation } from '../outputs.js';
import { EditSession, appendLine, eolOf, indentAt, nextLineStart, offsetOfLine, type TextEdit } from '../text-edits.js';
import type { AuditContext } from '../types.js';
import { GO_MANIFEST } from './declared.js';
import { goExec } from './go-command.js';
import { moduleGraph } from './graph.js';
import { GO_SUM, pruneGoSum } from './gosum.js';
import { MODULE_VERSION, parseGoMod, type GoMod, type Requirement } from './gomod.js';

type Add = Extract<ManifestEdit, { kind: 'add' }>;

/** The text of 1-based line `line`, without its line break. */
function lineAt(text: string, line: number): { start: number; text: string } {
  const start = offsetOfLine(text, line)!;
  return { start, text: text.slice(start, nextLineStart(text, start)).replace(/\r?\n$/, '') };
}

/** Offset in `line` where its `//` comment starts (outside quoted tokens), or -1. */
function commentStart(line: string): number {
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"' || c === '`') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) return -1;
      i = end;
    } else if (line.startsWith('//', i)) return i;
  }
  return -1;
}

/** The edit replacing the version token of a require line. */
function versionEdit(text: string, req: Requirement, version: string): TextEdit | undefined {
  const { start, text: line } = lineAt(text, req.line);
  const end = commentStart(line) < 0 ? line.length : commentStart(line);
  const pathAt = line.indexOf(req.path);
  const at = pathAt < 0 ? -1 : line.indexOf(req.version, pathAt + req.path.length);
  if (at < 0 || at >= end) return undefined;
  return { start: start + at, end: start + at + req.version.length, text: version };
}

/** The edit dropping the `indirect` marker of a require line's comment (`// indirect; why` keeps `// why`). */
function directEdit(text: string, req: Requirement): TextEdit {
  const { start, text: line } = lineAt(text, req.line);
  const at = commentStart(line);
  const rest = line.slice(at + 2).trim().replace(/^indirect;?\s*/, '');
  if (rest) return { start: start + at, end: start + line.length, text: `// ${rest}` };
  const from = line.slice(0, at).trimEnd().length;
  return { start: start + from, end: start + line.length, text: '' };
}

const isCommentLine = (line: string) => /^\s*\/\//.test(line);

/** The first line of a require item with the comment lines directly above it (they belong to it, as go's parser has it). */
function itemFirstLine(text: string, line: number, after: number): number {
  let first = line;
  while (first - 1 > after && isCommentLine(lineAt(text, first - 1).text)) first--;
  return first;
}

/** The removal of a require line (and its comment lines in a block). */
function removeEdit(text: string, mod: GoMod, req: Requirement): TextEdit {
  const block = mod.requireBlocks.find((b) => b.open < req.line && req.line < b.close);
  const first = block ? itemFirstLine(text, req.line, block.open) : req.line;
  const start = offsetOfLine(text, first)!;
  return { start, end: nextLineStart(text, offsetOfLine(text, req.line)!), text: '' };
}

/** Where new require lines go, and how they are written. */
function additions(text: string, mod: GoMod, adds: readonly Add[]): TextEdit[] {
  const eol = eolOf(text);
  const sorted = [...adds].sort((a, b) => (a.name < b.name ? -1 : 1));
  const items = (b: { open: number; close: number }) => mod.require.filter((r) => b.open < r.line && r.line < b.close);
  const block = mod.requireBlocks.find((b) => items(b).some((r) => !r.indirect)) ?? mod.requireBlocks.find((b) => b.close > b.open + 1);
  if (!block) {
    const last = mod.require.at(-1);
    const lines = sorted.map((a) => `require ${a.name} ${a.version}${eol}`).join('');
    if (!last) return [appendLine(text, lines.slice(0, -eol.length))];
    const at = nextLineStart(text, offsetOfLine(text, last.line)!);
    return [{ start: at, end: at, text: `${at === text.length && !text.endsWith('\n') ? eol : ''}${lines}` }];
  }
  const inBlock = items(block);
  const indent = inBlock[0] ? indentAt(text, offsetOfLine(text, inBlock[0].line)!) : '\t';
  const byOffset = new Map<number, string>();
  for (const add of sorted) {
    const before = inBlock.find((r) => r.path > add.name);
    const line = before ? itemFirstLine(text, before.line, block.open) : block.close;
    const at = offsetOfLine(text, line)!;
    byOffset.set(at, `${byOffset.get(at) ?? ''}${indent}${add.name} ${add.version}${eol}`);
  }
  return [...byOffset].map(([at, lines]) => ({ start: at, end: at, text: lines }));
}

function requirementOf(mod: GoMod, dependency: Dependency): Requirement | undefined {
  const line = sourceLocation(dependency.source)?.line;
  return mod.require.find((r) => r.path === dependency.name && r.line === line);
}

export const goManifestEditor: ManifestEditor = {
  async locate(_projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>> {
    return locationsFromSources(declared);
  },

  async apply(projectDir: string, _declared: DeclaredResult, edits: readonly ManifestEdit[]): Promise<EditOutcome> {
    const session = new EditSession<ManifestEdit>(projectDir);
    const text = (await session.text(GO_MANIFEST))!;
    const mod = parseGoMod(text, GO_MANIFEST);
    const adds: Add[] = [];
    for (const edit of edits) {
      if (edit.kind === 'add') {
        const required = mod.require.find((r) => r.path === edit.name);
        if (!MODULE_VERSION.test(edit.version)) {
          session.refuse(edit, `${edit.name} ${edit.version} is no module version: a system library (${edit.id ?? edit.name}) goes into the environment (--system-packages), not go.mod`);
        } else if (edit.id?.includes(' => ')) session.refuse(edit, `it is replaced (${edit.id}): require it by hand at the version the replace line applies to`);
        else if (required && !required.indirect) session.refuse(edit, `go.mod:${required.line} requires it already`);
        else if (required) {
          const version = required.version === edit.version ? undefined : versionEdit(text, required, edit.version);
          session.change(GO_MANIFEST, [directEdit(text, required), ...(version ? [version] : [])], edit);
        } else adds.push(edit);
        continue;
      }
      const req = requirementOf(mod, edit.dependency);
      const change = req && (edit.kind === 'remove' ? removeEdit(text, mod, req) : versionEdit(text, req, edit.version));
      if (change) session.change(GO_MANIFEST, change, edit);
      else session.refuse(edit, `no require line of ${edit.dependency.name} where D1 found it (${edit.dependency.source ?? 'nowhere'})`);
    }
    if (adds.length) {
      session.settle();
      const settled = (await session.text(GO_MANIFEST))!;
      const edited = parseGoMod(settled, GO_MANIFEST);
      const inserts = additions(settled, edited, adds);
      adds.forEach((add, i) => session.change(GO_MANIFEST, i === 0 ? inserts : [], add));
    }
    return session.outcome();
  },

  /**
   * The go command brings go.sum up to date for the edited go.mod: `go mod graph` and `go list -e -deps -test ./...`
   * add the checksums the module graph and the packages need (verified against the checksum database); lines of
   * module versions no longer in the graph are dropped, the rest of go.sum keeps its bytes. go.mod is not copied back.
   */
  async refresh(ctx: AuditContext): Promise<string[]> {
    const sumFile = path.join(ctx.host.projectDir, GO_SUM);
    if (!existsSync(sumFile)) return [];
    ctx.progress('go mod graph; go list -e -deps -test ./... (bringing go.sum up to date)');
    const graph = await moduleGraph(ctx);
    // -e: a package that does not load (the audit reports why) must not stop go.sum's refresh.
    const args = ['list', '-e', '-deps', '-test', './...'];
    const r = await goExec(ctx, args, true);
    if (r.exitCode !== 0 || r.timedOut) throw new StepFailedError('install', 'other', `go ${args.join(' ')} failed after the fix`, tail(`${r.stdout}\n${r.stderr}`));
    await writeProjectFile(ctx.host.projectDir, GO_SUM, pruneGoSum(await readProjectFile(ctx.host.projectDir, GO_SUM, 'utf8'), graph.nodes));
    return [GO_SUM];
  },
};
