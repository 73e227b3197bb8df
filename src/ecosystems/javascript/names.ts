/**
 * npm package names: an optional `@scope/` and a name of URL-safe characters that does not start with
 * `.` or `_`, at most 214 characters. Upper case is accepted because old registry packages use it
 * (e.g. `JSONStream`); such names are kept as written, since node_modules/ and require() are case-sensitive.
 */
import { builtinModules } from 'node:module';

const BUILTINS = new Set(builtinModules);
const NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i;
const RESERVED = new Set(['node_modules', 'favicon.ico']);

export function isValidPackageName(name: string): boolean {
  return name.length <= 214 && NAME.test(name) && !RESERVED.has(name.toLowerCase());
}

/** An exact version (`1.2.3`, `=1.2.3`, `v1.2.3-beta.1+build`), returned without its prefix; undefined for ranges and tags. */
export function exactVersion(spec: string): string | undefined {
  return /^[=v]?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/.exec(spec.trim())?.[1];
}

/** `npm:real-name@range` → its parts; undefined when the spec is not an alias. */
export function parseAlias(spec: string): { realName: string; range: string } | undefined {
  if (!spec.startsWith('npm:')) return undefined;
  const target = spec.slice(4);
  // The version separator is the first `@` after a possible scope's leading one.
  const at = target.indexOf('@', target.startsWith('@') ? 1 : 0);
  return at === -1 ? { realName: target, range: '' } : { realName: target.slice(0, at), range: target.slice(at + 1) };
}

/** The package a module specifier names, or undefined for relative, absolute, URL and built-in specifiers. */
export function packageOfSpecifier(specifier: string): string | undefined {
  if (/^(\.|\/|[a-z][a-z0-9+.-]*:)/i.test(specifier)) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  if (!name || BUILTINS.has(name) || (specifier.startsWith('@') && parts.length < 2)) return undefined;
  return name;
}
