/**
 * The files package.json names as code the project runs: `bin`, `main`, every path in `exports`, and the file
 * each `scripts` command hands to `node`. They are read for static imports whatever their extension
 * (`bin/http-server` has none). Paths are normalised relative to the project; one that leaves it is ignored.
 */
import path from 'node:path';
import { objectField, type PackageJson } from './package-json.js';

/** Files `exports` or `main` may name that are no JavaScript: JSON (`./package.json`) and native addons. */
const NOT_CODE = /\.(?:json|node|wasm)$/;

/** `./bin/x` → `bin/x`; undefined for paths outside the project or with a glob (exports subpath patterns). */
function projectPath(raw: string): string | undefined {
  if (!raw.trim() || raw.includes('*') || path.posix.isAbsolute(raw)) return undefined;
  const normal = path.posix.normalize(raw.trim());
  return normal === '..' || normal.startsWith('../') ? undefined : normal;
}

/** Every string leaf of `exports` (conditions and subpaths nest objects and arrays). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(exportTargets);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(exportTargets);
  return [];
}

/** The file argument of each `node [options] <file>` in a shell command (options taking no separate value). */
export function nodeScriptFiles(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/(?:^|[\s;&|(])node((?:\s+-[^\s]+)*)\s+([^\s;&|)'"`$-][^\s;&|)'"`$]*)/g)) out.push(m[2]!);
  return out;
}

export function packageEntryFiles(pkg: PackageJson): string[] {
  const raw: string[] = [];
  if (typeof pkg.bin === 'string') raw.push(pkg.bin);
  raw.push(...Object.values(objectField(pkg, 'bin') ?? {}).filter((v): v is string => typeof v === 'string'));
  if (typeof pkg.main === 'string') raw.push(pkg.main);
  raw.push(...exportTargets(pkg.exports));
  for (const command of Object.values(objectField(pkg, 'scripts') ?? {})) if (typeof command === 'string') raw.push(...nodeScriptFiles(command));
  return [...new Set(raw.map(projectPath).filter((p): p is string => p !== undefined && !NOT_CODE.test(p)))].sort();
}
