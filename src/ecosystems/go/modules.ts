/**
 * Modules as the go command prints them: `go list -m -json all` (D2, the build list) and `go version -m -json`
 * (D3, the build information the linker embedded in the binary) share one shape, a module path and version with
 * an optional replacement.
 */
import type { Dependency } from '../../core/types.js';

export interface GoModule {
  Path: string;
  Version?: string;
  /** A module replacement (Path and Version), or a directory one (Path is the directory, no Version). */
  Replace?: GoModule;
  Main?: boolean;
  Indirect?: boolean;
  /** Where its files are (inside the sandbox), when downloaded. */
  Dir?: string;
}

/** The JSON objects of a stream such as `go list -json` prints (one after another, not an array). */
export function parseJsonStream(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) {
      out.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  if (depth !== 0 || inString) throw new Error('truncated JSON stream');
  return out;
}

export function isModule(value: unknown): value is GoModule {
  return typeof value === 'object' && value !== null && typeof (value as GoModule).Path === 'string';
}

/** A real version: the build information writes `(devel)` for code built from a directory. */
function versionOf(m: GoModule): string | undefined {
  return m.Version && m.Version !== '(devel)' ? m.Version : undefined;
}

/** A module replaced by a directory: its code is the project's own. */
export function isDirectoryReplaced(m: GoModule): boolean {
  return m.Replace !== undefined && versionOf(m.Replace) === undefined;
}

/**
 * A module as a dependency: named by the path the code imports (what go.mod requires), versioned by what was
 * really used (the replacement's version when replaced by another module), the replacement kept in `id`.
 */
export function moduleDependency(m: GoModule, source: string): Dependency {
  const rep = m.Replace;
  const version = versionOf(rep ?? m);
  return {
    name: m.Path,
    ...(version ? { version } : {}),
    ...(rep ? { id: `${m.Path} => ${rep.Path}${versionOf(rep) ? ` ${rep.Version}` : ''}` } : {}),
    source,
  };
}
