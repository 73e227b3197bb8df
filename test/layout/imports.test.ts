// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/cli.js';
import { cycles, importGraph, runtimeImports } from './import-graph.js';

describe('the runtime import graph of src/', () => {
  const graph = importGraph(REPO_ROOT);

  it('reads what a module loads at run time, and only that', () => {
    const source = [
      "import a from './a.js';",
      "import { b, type B } from './b.js';",
      "import { type C } from './c.js';",
      "import type { D } from './d.js';",
      "import * as e from './e.js';",
      "import './f.js';",
      "export { g } from './g.js';",
      "export type { H } from './h.js';",
      "export * from './i.js';",
      "import path from 'node:path';",
      "const later = () => import('./j.js');",
    ].join('\n');
    assert.deepEqual(runtimeImports(source), ['./a.js', './b.js', './e.js', './f.js', './g.js', './i.js']);
    assert.deepEqual(cycles(new Map([['x', ['y']], ['y', ['z']], ['z', ['x']], ['w', ['x']]])), [['x', 'y', 'z']]);
    assert.ok(graph.get('src/cli/main.ts')!.includes('src/cli/commands.ts'), 'the graph of src/ was read');
  });

  it('has no cycle: a module in a cycle can be read before it has finished initialising', () => {
    assert.deepEqual(cycles(graph), []);
  });

  it('has no module below cli/ that loads cli/', () => {
    const upward = [...graph].flatMap(([from, to]) => (from.startsWith('src/cli/') ? [] : to.filter((t) => t.startsWith('src/cli/')).map((t) => `${from} → ${t}`)));
    assert.deepEqual(upward, []);
  });
});
