// tier: quick
/** The skip helper: outside CI a skip names what is missing; in CI a missing tool fails instead of skipping. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const HELPER = pathToFileURL(path.join(import.meta.dirname, 'requires.ts')).href;
const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-requires-'));

/** Test files needing a tool that is absent: at suite level, and found out inside a running test. */
const suiteFile = path.join(dir, 'suite.test.ts');
writeFileSync(
  suiteFile,
  `import { describe, it } from 'node:test';
import { requires } from ${JSON.stringify(HELPER)};
describe('suite', requires('the frobnicator', false, 'apt-get install frobnicator'), () => { it('uses it', () => {}); });
`,
);
const insideFile = path.join(dir, 'inside.test.ts');
writeFileSync(
  insideFile,
  `import { it } from 'node:test';
import { skipMissing } from ${JSON.stringify(HELPER)};
it('checks inside', (t) => { skipMissing(t, 'the widget'); });
`,
);

function runTests(file: string, ci: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CI;
  if (ci !== undefined) env.CI = ci;
  // NODE_TEST_CONTEXT would make the child report to this runner instead of printing its own results.
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter', 'tap', file], { env, encoding: 'utf8', timeout: 60_000 });
}

describe('requires / skipMissing', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('outside CI: skips, naming what is missing', () => {
    const suite = runTests(suiteFile, undefined);
    assert.equal(suite.status, 0, suite.stdout + suite.stderr);
    assert.match(suite.stdout, /# SKIP needs the frobnicator is missing \(apt-get install frobnicator\)/);
    const inside = runTests(insideFile, undefined);
    assert.equal(inside.status, 0, inside.stdout + inside.stderr);
    assert.match(inside.stdout, /# SKIP needs the widget is missing/);
  });

  it('in CI (CI=true): the same files fail, naming what is missing', () => {
    for (const [file, what] of [
      [suiteFile, /CI=true and the frobnicator is missing \(apt-get install frobnicator\): scripts\/setup\.sh must provide it/],
      [insideFile, /CI=true and the widget is missing: scripts\/setup\.sh must provide it/],
    ] as const) {
      const r = runTests(file, 'true');
      assert.notEqual(r.status, 0, r.stdout);
      assert.match(r.stdout + r.stderr, what);
      assert.doesNotMatch(r.stdout, /# SKIP/);
    }
  });
});
