/**
 * D1 of a Go module: go.mod's `require` lines that are not `// indirect`. Indirect requirements (which the go
 * command records for modules the main module does not import itself) and exclusions are reported as other groups.
 * A requirement replaced by a local directory is the project's own code, as an npm workspace is: skipped from D1
 * (`local-path`) and named among the project's own packages, so no layer counts it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import type { DeclaredResult, Dependency, SkippedEntry } from '../../core/types.js';
import { MODULE_VERSION, parseGoMod, type GoMod, type Replacement, type Requirement } from './gomod.js';
import { readProjectFile } from '../../core/safe-read.js';

export const GO_MANIFEST = 'go.mod';

/** The replacement that applies to `path@version`: one naming that version wins over one for every version. */
export function replacementOf(mod: GoMod, modulePath: string, version?: string): Replacement | undefined {
  const forPath = mod.replace.filter((r) => r.from.path === modulePath);
  return forPath.find((r) => r.from.version !== undefined && r.from.version === version) ?? forPath.find((r) => r.from.version === undefined);
}

export async function readGoMod(projectDir: string): Promise<GoMod> {
  const file = path.join(projectDir, GO_MANIFEST);
  const text = await readProjectFile(projectDir, file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err instanceof EnvproofError) throw err;
    throw new EnvproofError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`, 'a Go module has go.mod at its top (`go mod init <module path>` writes one)');
  });
  return parseGoMod(text, GO_MANIFEST);
}

/** The module paths whose code is the project's own: the main module and every module replaced by a directory. */
export function ownModules(mod: GoMod): string[] {
  return [...new Set([mod.module, ...mod.replace.filter((r) => r.to.directory).map((r) => r.from.path)])].sort();
}

function dependencyOf(mod: GoMod, req: Requirement, notes: string[]): Dependency | SkippedEntry {
  const raw = `require ${req.path} ${req.version}${req.indirect ? ' // indirect' : ''}`;
  const source = `${GO_MANIFEST}:${req.line}`;
  const rep = replacementOf(mod, req.path, req.version);
  if (rep?.to.directory) {
    return { raw, reason: 'local-path', source, detail: `replaced by the directory ${rep.to.path} (go.mod:${rep.line}): the project's own code` };
  }
  let version: string | undefined = req.version;
  if (!MODULE_VERSION.test(req.version)) {
    notes.push(`${source}: ${req.path} ${req.version} is not a canonical module version; the go command resolves it (and rewrites go.mod)`);
    version = undefined;
  } else if (mod.exclude.some((e) => e.path === req.path && e.version === req.version)) {
    notes.push(`${source}: ${req.path} ${req.version} is excluded by go.mod; the go command selects the next version it may use`);
    version = undefined;
  }
  return {
    name: req.path,
    ...(version ? { version } : {}),
    ...(rep ? { id: `${req.path} => ${rep.to.path} ${rep.to.version}` } : {}),
    source,
  };
}

export async function extractGoDeclared(projectDir: string): Promise<DeclaredResult> {
  const mod = await readGoMod(projectDir);
  const notes: string[] = [];
  const declared: Dependency[] = [];
  const indirect: Dependency[] = [];
  const skipped: SkippedEntry[] = [];
  for (const req of mod.require) {
    const entry = dependencyOf(mod, req, notes);
    if ('reason' in entry) skipped.push(entry);
    else (req.indirect ? indirect : declared).push(entry);
  }
  const required = new Set(mod.require.map((r) => r.path));
  for (const rep of mod.replace.filter((r) => !required.has(r.from.path))) {
    notes.push(`${GO_MANIFEST}:${rep.line}: the replacement of ${rep.from.path} applies to no require line; it matters only where another module requires it`);
  }
  if (!existsSync(path.join(projectDir, 'go.sum'))) {
    notes.push('there is no go.sum: the go command writes it while resolving (usual for a generated project); checksums come from the checksum database');
  }
  const other: Record<string, Dependency[]> = {};
  if (indirect.length) other.indirect = indirect;
  if (mod.exclude.length) other.exclude = mod.exclude.map((e) => ({ name: e.path, version: e.version, source: `${GO_MANIFEST}:${e.line}` }));
  return { manifest: GO_MANIFEST, declared, other, skipped, notes, own: ownModules(mod) };
}
