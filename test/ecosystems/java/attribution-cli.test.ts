import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../helpers/cli.js';
import { FIXTURES } from './helpers.js';

const names = (layer: { name: string }[]) => layer.map((d) => d.name).sort();

test('--java-attribution opened gives the paper-compatible D3 (jars opened), loaded the class-level one', () => {
  const audit = (how: string) => {
    const r = runCli(['audit', path.join(FIXTURES, 'gson-jackson'), '--sandbox', 'host', '--json', '--java-attribution', how]);
    const report = JSON.parse(r.stdout);
    assert.ok(report.layers, `${how}: ${r.stderr}`);
    return report;
  };
  const loaded = audit('loaded');
  // Classes come from gson and from jackson-databind, which needs jackson-core and jackson-annotations.
  assert.deepEqual(names(loaded.layers.traced), ['gson', 'jackson-annotations', 'jackson-core', 'jackson-databind']);
  assert.deepEqual(loaded.gaps.phantom, ['commons-lang3']);
  // The JVM opens commons-lang3 (first on the class path) while searching it for other classes.
  const opened = audit('opened');
  assert.deepEqual(names(opened.layers.traced), ['commons-lang3', 'gson', 'jackson-annotations', 'jackson-core', 'jackson-databind']);
  assert.deepEqual(opened.gaps.phantom, []);
  assert.ok(opened.notes.some((n: string) => /"opened" view/.test(n)));
});
