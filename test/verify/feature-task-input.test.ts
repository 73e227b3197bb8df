// tier: quick
/**
 * evaluate-feature's task file is checked against its schema before anything runs (exit 2, the key named), and every
 * early exit (a clone or a removal patch that fails) removes its temporary checkout. The CLI runs with its own
 * TMPDIR, so what it leaves behind is seen without other processes' files.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'envproof-feature-input-'));
const tmp = path.join(root, 'tmp');
mkdirSync(tmp);
after(() => rmSync(root, { recursive: true, force: true }));

const repo = path.join(root, 'repo');
mkdirSync(repo);
const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd: repo, encoding: 'utf8' }).stdout.trim();
writeFileSync(path.join(repo, 'app.py'), 'print("hello")\n');
git('init', '--quiet');
git('add', '-A');
git('commit', '--quiet', '-m', 'initial');
const commit = git('rev-parse', 'HEAD');
writeFileSync(path.join(root, 'good.patch'), 'diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print("hello")\n+print("bye")\n');
writeFileSync(path.join(root, 'stale.patch'), 'diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print("not there")\n+print("bye")\n');
const spec = path.join(root, 'openapi.yml');
writeFileSync(spec, 'openapi: 3.0.0\n');

let n = 0;
function evaluate(fields: Record<string, unknown>) {
  const task = {
    id: 'demo', title: 'Demo', language: 'python', framework: 'flask',
    repository: { path: 'repo', commit }, removalPatch: 'good.patch', removed: { lines: 1, files: 1 }, ...fields,
  };
  const file = path.join(root, `task-${++n}.json`);
  writeFileSync(file, JSON.stringify(task));
  const r = runCli(['evaluate-feature', file, '--spec', spec, '-q'], { env: { TMPDIR: tmp }, timeoutMs: 120_000 });
  assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('envproof-feature-')), [], 'no temporary checkout is left behind');
  assert.doesNotMatch(r.stderr, /internal error/);
  return r;
}

describe('evaluate-feature: the task file and early exits', () => {
  test('"port": "abc" is refused by the schema, exit 2', () => {
    const r = evaluate({ port: 'abc' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /invalid feature task .*task-\d+\.json: "port" must be integer/);
  });

  test('a port out of range, an unknown key and a bad commit are each named', () => {
    const r = evaluate({ port: 70000, prot: 8080, repository: { path: 'repo', commit: 'not-a-sha' } });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /"port" must be <= 65535/);
    assert.match(r.stderr, /unknown key "prot"/);
    assert.match(r.stderr, /"repository\.commit" must match pattern/);
  });

  test('a missing required key', () => {
    const r = evaluate({ removed: undefined });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /the task must have required property 'removed'/);
  });

  test('a clone that fails removes its checkout', () => {
    const r = evaluate({ repository: { path: 'no-such-repo', commit } });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /cloning .*no-such-repo: git clone failed/);
  });

  test('a removal patch that does not apply removes its checkout', () => {
    const r = evaluate({ removalPatch: 'stale.patch' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /applying the removal patch .*stale\.patch: git apply failed/);
  });
});
