/**
 * What the project's static imports, the dependency graph and the traced runs say about one package: which import
 * sites are development code, the chain that brought a package nobody declared, the run's error line about a module.
 */

/** Directories of development code: their imports are never evidence that a runtime dependency is used. */
const DEVELOPMENT_DIRS = new Set(['test', 'tests', '__tests__', 'doc', 'docs', 'example', 'examples']);

/** Test files by their names: Go's `x_test.go`, JavaScript's and TypeScript's `x.test.js`, `x.spec.ts`. */
const TEST_FILE = /(_test\.go|\.(test|spec)\.[cm]?[jt]sx?)$/;

/** `tests/test_cli.py:3` is development code: a directory of its path is tests, docs or examples, or it is a test file. */
export function isDevelopmentSite(site: string): boolean {
  const parts = site.replace(/:\d+$/, '').split('/');
  return TEST_FILE.test(parts.at(-1)!) || parts.slice(0, -1).some((dir) => DEVELOPMENT_DIRS.has(dir));
}

export function splitSites(sites: readonly string[] = []): { runtime: string[]; development: string[] } {
  return { runtime: sites.filter((s) => !isDevelopmentSite(s)), development: sites.filter(isDevelopmentSite) };
}

/** `file:line` as a location; a site without a line is the file. */
export function siteLocation(site: string): { file: string; line?: number } {
  const m = /^(.+):(\d+)$/.exec(site);
  return m && Number(m[2]) > 0 ? { file: m[1]!, line: Number(m[2]) } : { file: m ? m[1]! : site };
}

/** Name → the names it depends on, from components' `name@version` edges. */
export function nameGraph(components: readonly { name: string; version?: string; dependsOn: readonly string[] }[]): Map<string, string[]> {
  const nameOf = new Map(components.map((c) => [`${c.name}@${c.version ?? ''}`, c.name]));
  const graph = new Map<string, string[]>();
  for (const c of components) {
    const next = graph.get(c.name) ?? [];
    for (const key of c.dependsOn) {
      const to = nameOf.get(key) ?? key.slice(0, key.lastIndexOf('@'));
      if (!next.includes(to)) next.push(to);
    }
    graph.set(c.name, next);
  }
  return graph;
}

/** The shortest chain from a declared package to `name` in the graph (`["pandas", "numpy"]`); breadth first. */
export function dependencyChain(name: string, declared: readonly string[], graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const previous = new Map<string, string | null>(declared.filter((d) => graph.has(d)).sort().map((d) => [d, null]));
  const queue = [...previous.keys()];
  while (queue.length) {
    const at = queue.shift()!;
    if (at === name && previous.get(at) !== null) {
      const chain = [at];
      for (let p = previous.get(at); p; p = previous.get(p)) chain.unshift(p);
      return chain;
    }
    for (const next of graph.get(at) ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, at);
      queue.push(next);
    }
  }
  return undefined;
}

/**
 * The line of a failed run's output that says `module` is missing: Python's `No module named 'x'`, Node's
 * `Cannot find module 'x'`, and the like (the module quoted on a line that says it is not there).
 */
export function missingModuleLine(outputs: readonly string[], module: string): string | undefined {
  const quoted = [`'${module}'`, `"${module}"`];
  for (const output of outputs) {
    for (const line of output.split('\n')) {
      if (quoted.some((q) => line.includes(q)) && /no module named|cannot find|not found|could not (be )?(resolve|import)/i.test(line)) return line.trim();
    }
  }
  return undefined;
}
