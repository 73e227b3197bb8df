/**
 * Static imports of a JavaScript/TypeScript project, read with the TypeScript compiler's own pre-processor
 * (`ts.preProcessFile`): `import`/`export … from`, dynamic `import("…")` and `require("…")` with a literal
 * specifier, in every source file outside node_modules. Source files are those with a JavaScript or TypeScript
 * extension, the files package.json names as code (entry-files.ts) and files whose first line is a `node` shebang,
 * whatever their names. A bare specifier names a package (`@scope/name/sub` → `@scope/name`); relative paths and
 * Node's built-in modules do not. Packages loaded by discovery — named in Babel or ESLint configuration
 * (config-discovery.ts), or located with `require.resolve('x')` — are reported apart, with the rule that found them.
 * A package the code imports that the install did not bring (nor its `@types/` stub, which serves a type-only
 * import), and that is not the project's own, is unresolved: a missing dependency — unless every import of it is
 * inside a `try` block (`try { require('fsevents') } catch {}`): an optional one, a note.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { StaticImports } from '../outputs.js';
import { lineNumber } from '../text-edits.js';
import type { AuditContext, InstallResult } from '../types.js';
import { readProjectFile } from '../../core/safe-read.js';
import { configDiscoveries, type Discovered } from './config-discovery.js';
import { packageEntryFiles } from './entry-files.js';
import { MANIFEST } from './manifest.js';
import { isValidPackageName, packageOfSpecifier } from './names.js';
import { ownPackageNames } from './own.js';
import { readPackageJson } from './package-json.js';

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

const NODE_SHEBANG = /^#!.*\bnode\b/;
/** `require.resolve('x')`: the package's path is looked up (a tool locating a plug-in), nothing is loaded. */
const REQUIRE_RESOLVE = /\brequire\.resolve\(\s*(['"`])([^'"`]+)\1/g;

/** Every regular file under `dir` outside node_modules and .git; symbolic links are not followed. */
async function projectFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) out.push(...(await projectFiles(dir, child)));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

async function hasNodeShebang(file: string): Promise<boolean> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(128), 0, 128, 0);
    return NODE_SHEBANG.test(buffer.subarray(0, bytesRead).toString('latin1').split('\n')[0]!);
  } finally {
    await handle.close();
  }
}

/** The source files, and apart those read only because package.json names them or their shebang is node's. */
async function sourceFiles(dir: string): Promise<{ files: string[]; unnamed: string[] }> {
  const all = await projectFiles(dir);
  const pkg = await readPackageJson(path.join(dir, MANIFEST)).catch(() => ({}));
  const named = new Set(packageEntryFiles(pkg));
  const unnamed: string[] = [];
  for (const file of all) {
    if (SOURCE.test(file)) continue;
    if (named.has(file) || (await hasNodeShebang(path.join(dir, file)))) unnamed.push(file);
  }
  return { files: [...all.filter((f) => SOURCE.test(f)), ...unnamed].sort(), unnamed: unnamed.sort() };
}

export async function scanJsImports(projectDir: string): Promise<StaticImports> {
  const ts = (await import('typescript')).default;
  const imports: Record<string, string[]> = {};
  // Configuration first: a package both named in a config and located with require.resolve is the config's.
  const discovered: Discovered = await configDiscoveries(projectDir);
  const { files, unnamed } = await sourceFiles(projectDir);
  for (const file of files) {
    const text = await readProjectFile(projectDir, file, 'utf8');
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const name = packageOfSpecifier(ref.fileName);
      if (name) (imports[name] ??= []).push(`${file}:${lineNumber(text, ref.pos)}`);
    }
    for (const m of text.matchAll(REQUIRE_RESOLVE)) {
      const name = packageOfSpecifier(m[2]!);
      if (name && !discovered[name]) discovered[name] = { rule: 'require-resolve', evidence: `${file}:${lineNumber(text, m.index)}` };
    }
  }
  const notes = unnamed.length ? [`read as JavaScript without a JavaScript extension (named by package.json or a node shebang): ${unnamed.join(', ')}`] : [];
  return { imports, method: "the TypeScript compiler's pre-processor (import, export from, import(), require())", discovered, notes };
}

/** `@scope/name` → `@types/scope__name`, DefinitelyTyped's name for a package's types. */
function typesPackage(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

/** The imports of packages that `provided` (installed and own names) lacks, with their types stub too. */
export function unresolvedPackages(imports: Record<string, string[]>, provided: ReadonlySet<string>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(imports).filter(([name]) => isValidPackageName(name) && !provided.has(name) && !provided.has(typesPackage(name))));
}

/** The 1-based line ranges of the `try` blocks of a file (not their catch or finally). */
async function tryBlockLines(dir: string, file: string): Promise<[number, number][]> {
  const ts = (await import('typescript')).default;
  const source = ts.createSourceFile(file, await readProjectFile(dir, file, 'utf8'), ts.ScriptTarget.Latest, true);
  const ranges: [number, number][] = [];
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: import('typescript').Node) => {
    if (ts.isTryStatement(node)) ranges.push([line(node.tryBlock.getStart(source)), line(node.tryBlock.getEnd())]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return ranges;
}

/** Splits the unresolved imports: those with an import outside every `try` block, and the optional rest. */
export async function splitOptional(dir: string, unresolved: Record<string, string[]>): Promise<{ required: Record<string, string[]>; optional: string[] }> {
  const tries = new Map<string, [number, number][]>();
  const inTry = async (site: string) => {
    const m = /^(.+):(\d+)$/.exec(site);
    if (!m) return false;
    if (!tries.has(m[1]!)) tries.set(m[1]!, await tryBlockLines(dir, m[1]!));
    return tries.get(m[1]!)!.some(([from, to]) => from <= Number(m[2]) && Number(m[2]) <= to);
  };
  const required: Record<string, string[]> = {};
  const optional: string[] = [];
  for (const [name, sites] of Object.entries(unresolved)) {
    const guarded = await Promise.all(sites.map(inTry));
    if (guarded.every(Boolean)) optional.push(name);
    else required[name] = sites;
  }
  return { required, optional: optional.sort() };
}

export async function npmStaticImports(ctx: AuditContext, install: InstallResult): Promise<StaticImports> {
  const dir = ctx.host.projectDir;
  const found = await scanJsImports(dir);
  const own = await ownPackageNames(dir, await readPackageJson(path.join(dir, MANIFEST)).catch(() => ({})));
  const { required, optional } = await splitOptional(dir, unresolvedPackages(found.imports, new Set([...install.installed.map((d) => d.name), ...(install.own ?? []), ...own])));
  const notes = optional.length ? [...found.notes, `optional imports (inside try blocks) no installed package provides: ${optional.join(', ')}`] : found.notes;
  return { ...found, notes, ...(Object.keys(required).length ? { unresolved: required } : {}) };
}
