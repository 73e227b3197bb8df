/**
 * Static imports of a Go module: the import declarations of every .go file of the project (tests and files behind
 * build constraints included: they are code paths too), each import path owned by the module of the build list or
 * of go.mod whose path is its longest prefix, as the go command resolves it. The standard library and the
 * project's own modules own none. Directories the go command ignores (vendor, testdata, `.x`, `_x`) are skipped.
 * A module imported only in files the build's constraints excluded (constraints.ts) is reported as such. An import
 * path no module owns whose first element has a dot (the standard library's have none) is unresolved: no module of
 * the build list or go.mod provides it, a missing dependency (the build, with -mod=mod, adds what the built packages
 * import; so these are imports of tests and of files or packages the build did not compile).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { StaticImports } from '../outputs.js';
import { lineNumber } from '../text-edits.js';
import type { AuditContext, InstallResult } from '../types.js';
import { excludedFiles, type ExcludedFiles } from './constraints.js';
import { readGoMod } from './declared.js';
import { readProjectFile } from '../../core/safe-read.js';

/** The text with comments blanked (line breaks kept, so offsets and lines stay), strings and runes left as they are. */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '"' || c === '`' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && !(c !== '`' && text[j] === '\n')) j += text[j] === '\\' && c !== '`' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (text.startsWith('//', i) || text.startsWith('/*', i)) {
      const line = text[i + 1] === '/';
      const end = line ? text.indexOf('\n', i) : text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : line ? end : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const SPEC = /\s*(?:[A-Za-z_]\w*\s+|\.\s+|)("[^"\n]*"|`[^`]*`)/y;

/** The import paths of one Go source file with the offset of each. */
export function goImports(source: string): { path: string; offset: number }[] {
  const text = withoutComments(source);
  const pkg = /^\s*package\s+\w+\s*;?/m.exec(text);
  if (!pkg) return [];
  const found: { path: string; offset: number }[] = [];
  const take = (m: RegExpExecArray) => found.push({ path: m[1]!.slice(1, -1), offset: m.index + m[0].indexOf(m[1]!) });
  const decl = /\s*import\b\s*(\()?/y;
  let at = pkg.index + pkg[0].length;
  for (let d = (decl.lastIndex = at, decl.exec(text)); d; d = (decl.lastIndex = at, decl.exec(text))) {
    at = decl.lastIndex;
    if (!d[1]) {
      SPEC.lastIndex = at;
      const m = SPEC.exec(text);
      if (!m) break;
      take(m);
      at = SPEC.lastIndex;
    } else {
      for (let m = (SPEC.lastIndex = at, SPEC.exec(text)); m; m = (SPEC.lastIndex = at, SPEC.exec(text))) {
        take(m);
        at = SPEC.lastIndex;
        at += /^[\s;]*/.exec(text.slice(at))![0].length;
      }
      const close = /^\s*\)/.exec(text.slice(at));
      if (!close) break;
      at += close[0].length;
    }
    at += /^[\s;]*/.exec(text.slice(at))![0].length;
  }
  return found;
}

async function goFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory() && !/^[._]/.test(entry.name) && entry.name !== 'vendor' && entry.name !== 'testdata') out.push(...(await goFiles(dir, child)));
    else if (entry.isFile() && entry.name.endsWith('.go')) out.push(child);
  }
  return out.sort();
}

/** The module owning an import path: the longest module path that is the import path or a prefix of it at a `/`. */
export function owningModule(importPath: string, modules: readonly string[]): string | undefined {
  return modules.filter((m) => importPath === m || importPath.startsWith(`${m}/`)).sort((a, b) => b.length - a.length)[0];
}

export async function scanGoImports(projectDir: string, modules: readonly string[], own: ReadonlySet<string>, excluded?: ExcludedFiles): Promise<StaticImports> {
  const imports: Record<string, string[]> = {};
  const constraints: Record<string, string[]> = {};
  const usedBuild = new Set<string>();
  const unresolved: Record<string, string[]> = {};
  const known = [...new Set([...modules, ...own])];
  for (const file of await goFiles(projectDir)) {
    const text = await readProjectFile(projectDir, file, 'utf8');
    for (const imp of goImports(text)) {
      const module = owningModule(imp.path, known);
      if (!module && imp.path.split('/')[0]!.includes('.')) (unresolved[imp.path] ??= []).push(`${file}:${lineNumber(text, imp.offset)}`);
      if (!module || own.has(module)) continue;
      (imports[module] ??= []).push(`${file}:${lineNumber(text, imp.offset)}`);
      const constraint = excluded?.files.get(file);
      if (constraint === undefined) usedBuild.add(module);
      else if (!constraints[module]?.includes(constraint)) (constraints[module] ??= []).push(constraint);
    }
  }
  const method = 'the import declarations of every .go file, owned by the longest module path of the build list or go.mod';
  const unlistedAdvice = 'go.mod must list every module of the build (go mod tidy adds it, // indirect): declare it (envproof fix)';
  const developmentAdvice = 'go.mod lists the modules tests import too (go mod tidy keeps them): keep it';
  const base = { imports, method, unlistedAdvice, developmentAdvice, ...(Object.keys(unresolved).length ? { unresolved } : {}), notes: [] };
  const onlyConstrained = Object.entries(constraints).filter(([m]) => !usedBuild.has(m));
  if (!excluded || !onlyConstrained.length) return base;
  return { ...base, constrained: { context: excluded.context, imports: Object.fromEntries(onlyConstrained) } };
}

export async function goStaticImports(ctx: AuditContext, install: InstallResult): Promise<StaticImports> {
  const dir = ctx.host.projectDir;
  const mod = await readGoMod(dir);
  const own = new Set([mod.module, ...(install.own ?? [])]);
  const excluded = await excludedFiles(ctx);
  const notes = excluded ? [] : ['go list could not tell which files the build constraints exclude: imports behind them count as any other'];
  const found = await scanGoImports(dir, [...install.installed.map((d) => d.name), ...mod.require.map((r) => r.path)], own, excluded);
  return { ...found, notes: [...found.notes, ...notes] };
}
