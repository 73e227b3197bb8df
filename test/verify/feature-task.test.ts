/**
 * A feature-implementation task made from the Flask reference server: the comments feature removed by a patch.
 * Evaluated as the task prescribes: pristine checkout, removal patch, (the agent's patch), suites.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { referenceServer, SPEC } from './helpers.js';

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
};

/** The comment routes of routes/articles.py, from the first comment route to the tags route. */
function withoutComments(text: string): string {
  const from = text.indexOf('@blueprint.get("/articles/<slug>/comments")');
  const to = text.indexOf('@blueprint.get("/tags")');
  assert.ok(from > 0 && to > from);
  return text.slice(0, from) + text.slice(to);
}

test('a feature-removal task: the stripped server fails exactly the comment assertions, the restored one passes', () => {
  const repo = referenceServer('flask-sqlalchemy', 'sqlite');
  git(repo, 'init', '--quiet');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'reference');
  const commit = git(repo, 'rev-parse', 'HEAD');
  const routes = path.join(repo, 'conduit/routes/articles.py');
  const original = readFileSync(routes, 'utf8');
  writeFileSync(routes, withoutComments(original));
  const patch = spawnSync('git', ['diff'], { cwd: repo, encoding: 'utf8' }).stdout;
  git(repo, 'checkout', '--', '.');
  const removedLines = patch.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---')).length;

  const taskDir = mkdtempSync(path.join(os.tmpdir(), 'envproof-feature-task-'));
  writeFileSync(path.join(taskDir, 'comments.patch'), patch);
  const task = path.join(taskDir, 'flask-comments.json');
  writeFileSync(task, JSON.stringify({
    id: 'flask-comments', title: 'Restore the comments', language: 'python', framework: 'flask', database: 'sqlite',
    repository: { path: repo, commit }, removalPatch: 'comments.patch', removed: { lines: removedLines, files: 1 },
  }));

  // Baseline: the four comment requests fail or cannot be made (no comment id): 4 + 3 + 2 + 1 + 2 = 12 assertions.
  const stripped = runCli(['evaluate-feature', task, '--spec', SPEC, '--sandbox', 'bwrap', '--json', '-q']);
  assert.equal(stripped.status, 1, stripped.stderr);
  const s = JSON.parse(stripped.stdout);
  const failed = s.contract.assertions.filter((a: { passed: boolean }) => !a.passed).map((a: { id: string }) => a.id.split('.')[0]);
  assert.deepEqual([...new Set(failed)], ['add-comment', 'list-comments', 'list-comments-anonymous', 'delete-comment', 'list-comments-after-delete']);
  assert.equal(failed.length, 12);
  assert.equal(s.aPct.lenient, (100 * 95) / 107);
  assert.equal(s.verifiers, undefined, 'no verifiers for feature tasks');

  // The agent restores the routes in its tree; its patch is computed against the stripped checkout and applied to a pristine one.
  const tree = mkdtempSync(path.join(os.tmpdir(), 'envproof-agent-tree-'));
  cpSync(repo, tree, { recursive: true, filter: (src) => !src.includes(`${path.sep}.git`) });
  const restored = runCli(['evaluate-feature', task, '--spec', SPEC, '--sandbox', 'bwrap', '--tree', tree, '--json', '-q']);
  assert.equal(restored.status, 0, restored.stderr);
  const r = JSON.parse(restored.stdout);
  assert.equal(r.contract.passed, 107);
  assert.equal(r.passed, true);

  const bad = path.join(taskDir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ id: 'x', title: 'x', language: 'python', framework: 'flask', repository: { path: repo, commit: 'not-a-sha' }, removalPatch: 'comments.patch', removed: { lines: 1, files: 1 } }));
  const invalid = runCli(['evaluate-feature', bad, '--spec', SPEC]);
  assert.equal(invalid.status, 2);
  assert.match(invalid.stderr, /invalid feature task .*"repository\.commit" must match pattern/);
});
