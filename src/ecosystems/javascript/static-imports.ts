/**
 * Static imports of a JavaScript/TypeScript project, read with the TypeScript compiler's own pre-processor
 * (`ts.preProcessFile`): `import`/`export … from`, dynamic `import("…")` and `require("…")` with a literal
 * specifier, in every source file outside node_modules. A bare specifier names a package (`@scope/name/sub` →
 * `@scope/name`); relative paths and Node's built-in modules do not.
 */
import { builtinModules } from 'node:module';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { StaticImports } from '../outputs.js';
import { lineNumber } from '../text-edits.js';
import type { AuditContext } from '../types.js';
import { readProjectFile } from '../../core/safe-read.js';

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const BUILTINS = new Set(builtinModules);

/** The package a module specifier names, or undefined for relative, absolute, URL and built-in specifiers. */
export function packageOfSpecifier(specifier: string): string | undefined {
  if (/^(\.|\/|[a-z][a-z0-9+.-]*:)/i.test(specifier)) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  if (!name || BUILTINS.has(name) || (specifier.startsWith('@') && parts.length < 2)) return undefined;
  return name;
}

async function sourceFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) out.push(...(await sourceFiles(dir, child)));
    else if (entry.isFile() && SOURCE.test(entry.name)) out.push(child);
  }
  return out.sort();
}

export async function scanJsImports(projectDir: string): Promise<StaticImports> {
  const ts = (await import('typescript')).default;
  const imports: Record<string, string[]> = {};
  for (const file of await sourceFiles(projectDir)) {
    const text = await readProjectFile(projectDir, file, 'utf8');
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const name = packageOfSpecifier(ref.fileName);
      if (name) (imports[name] ??= []).push(`${file}:${lineNumber(text, ref.pos)}`);
    }
  }
  return { imports, method: "the TypeScript compiler's pre-processor (import, export from, import(), require())", notes: [] };
}

export const npmStaticImports = (ctx: AuditContext): Promise<StaticImports> => scanJsImports(ctx.host.projectDir);
