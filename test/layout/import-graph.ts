/**
 * The runtime import graph of src/: which module loads which when the program runs. Type-only imports and
 * re-exports are left out (TypeScript erases them), and so are dynamic `import()`s (they load on demand, after
 * every static import has been evaluated, so they cannot see a half-initialised module).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every .ts file under `dir`, as paths relative to `root`. */
function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(root, rel);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

function erased(clause: ts.ImportClause | undefined, elements: readonly { isTypeOnly: boolean }[] | undefined): boolean {
  if (clause?.isTypeOnly) return true;
  if (clause?.name) return false;
  return elements !== undefined && elements.length > 0 && elements.every((e) => e.isTypeOnly);
}

/** The relative module specifiers a file loads at run time. */
export function runtimeImports(source: string, fileName = 'module.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  for (const s of file.statements) {
    if (ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier)) {
      const bindings = s.importClause?.namedBindings;
      const elements = bindings && ts.isNamedImports(bindings) ? bindings.elements : undefined;
      if (!erased(s.importClause, elements)) {
        out.push(s.moduleSpecifier.text);
      }
    } else if (ts.isExportDeclaration(s) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier)) {
      const elements = s.exportClause && ts.isNamedExports(s.exportClause) ? s.exportClause.elements : undefined;
      if (!s.isTypeOnly && !(elements && elements.length > 0 && elements.every((e) => e.isTypeOnly))) out.push(s.moduleSpecifier.text);
    }
  }
  return out.filter((spec) => spec.startsWith('.'));
}

/** Module (path relative to root, e.g. `src/cli/main.ts`) → the modules it loads at run time. */
export function importGraph(root: string, dir = 'src'): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const rel of sourceFiles(root, dir)) {
    const targets = runtimeImports(readFileSync(path.join(root, rel), 'utf8'), rel).map((spec) =>
      path.posix.join(path.posix.dirname(rel), spec).replace(/\.js$/, '.ts'),
    );
    graph.set(rel, [...new Set(targets)].sort());
  }
  return graph;
}

/** The graph's cycles: each strongly connected component of more than one module (or a module importing itself). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}
