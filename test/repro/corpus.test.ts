import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, runCliAsync } from '../helpers/cli.js';
import { createDatabase, startPostgres, type Service } from '../helpers/services.js';
import { ResultsStore } from '../../src/store/store.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();

/** A small Go repository, and patches made as diffs of real edits to it. */
function corpusRepo() {
  const dir = mkdtempSync(path.join(tmpdir(), 'repro-corpus-'));
  const repo = path.join(dir, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q');
  writeFileSync(path.join(repo, 'go.mod'), 'module example.com/clock\n\ngo 1.19\n');
  writeFileSync(path.join(repo, 'clock.go'), 'package clock\n\nimport "time"\n\nfunc Hour(unix int64) int { return time.Unix(unix, 0).UTC().Hour() }\n');
  writeFileSync(path.join(repo, 'clock_test.go'), 'package clock\n\nimport "testing"\n\nfunc TestHour(t *testing.T) {\n\tif Hour(1700000000) != 22 {\n\t\tt.Fatal("hour")\n\t}\n}\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'base');
  const commit = git(repo, 'rev-parse', 'HEAD');
  const patch = (name: string, edit: () => void) => {
    edit();
    const file = path.join(dir, `${name}.patch`);
    writeFileSync(file, git(repo, 'diff') + '\n');
    git(repo, 'checkout', '-q', '--', '.');
    return file;
  };
  // The agent's patch switched to local time: it passed where it was evaluated (UTC) and depends on TZ.
  const local = patch('local-time', () => writeFileSync(path.join(repo, 'clock.go'), 'package clock\n\nimport "time"\n\nfunc Hour(unix int64) int { return time.Unix(unix, 0).Hour() }\n'));
  const rename = patch('rename', () => writeFileSync(path.join(repo, 'clock.go'), 'package clock\n\nimport "time"\n\n// Hour is the UTC hour of a Unix time.\nfunc Hour(unix int64) int { return time.Unix(unix, 0).UTC().Hour() }\n'));
  const broken = path.join(dir, 'broken.patch');
  writeFileSync(broken, '--- a/nothing.go\n+++ b/nothing.go\n@@ -1,1 +1,1 @@\n-package nothing\n+package something\n');
  return { dir, repo, commit, local, rename, broken };
}

async function instancesOf(spec: string) {
  const s = await ResultsStore.open(spec);
  try {
    return await s.repro().instances();
  } finally {
    await s.close();
  }
}

function line(o: Record<string, unknown>): string {
  return JSON.stringify({ cmd: 'go test ./...', outcome: { status: 'pass' }, recordedAt: '2026-11-01T00:00:00Z', ...o });
}

describe('envproof repro --corpus', () => {
  const c = corpusRepo();

  test('a corpus line without a field, or a patch that does not apply: a clear error and nothing recorded', async () => {
    const store = path.join(c.dir, 'bad.db');
    const missing = path.join(c.dir, 'missing.jsonl');
    writeFileSync(missing, `${line({ id: 'a', repo: 'repo', commit: c.commit, patch: 'rename.patch' })}\n${line({ id: 'b', repo: 'repo', patch: 'rename.patch' })}\n`);
    let r = runCli(['repro', '--corpus', missing, '--store', store, '-q']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /missing\.jsonl:2: missing field "commit"/);
    assert.equal(existsSync(store) ? (await instancesOf(store)).length : 0, 0);
    const badPatch = path.join(c.dir, 'bad-patch.jsonl');
    writeFileSync(badPatch, `${line({ id: 'a', repo: 'repo', commit: c.commit, patch: 'rename.patch' })}\n${line({ id: 'b', repo: 'repo', commit: c.commit, patch: 'broken.patch' })}\n`);
    r = runCli(['repro', '--corpus', badPatch, '--store', store, '-q']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /instance b: the patch .*broken\.patch does not apply/);
    const s = await ResultsStore.open(store);
    assert.deepEqual(await s.repro().instances(), []);
    assert.equal(await s.repro().runCount(path.resolve(badPatch), 'a'), 0);
    await s.close();
  });

  test('two patches: re-runs with and without the shim, baselines, the store, report --repro; a second run resumes', async () => {
    const corpus = path.join(c.dir, 'corpus.jsonl');
    writeFileSync(corpus, `${line({ id: 'local-time', repo: 'repo', commit: c.commit, patch: 'local-time.patch' })}\n${line({ id: 'rename', repo: 'repo', commit: c.commit, patch: 'rename.patch' })}\n`);
    const store = path.join(c.dir, 'corpus.db');
    const r = runCli(['repro', '--corpus', corpus, '--store', store, '--k', '1', '--vary', 'timezone', '-q']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /## Reproducibility of patches \(2 instances\)/);
    const s = await ResultsStore.open(store);
    const rows = await s.repro().instances();
    assert.deepEqual(rows.map((x) => [x.instanceId, x.verdict, x.shimVerdict, x.baselineVerdict]), [
      ['local-time', 'broken', 'reproducible', 'reproducible'],
      ['rename', 'reproducible', 'reproducible', 'reproducible'],
    ]);
    assert.deepEqual(rows[0]!.causes?.map((x) => x.factor), ['timezone']);
    // patched: 1 re-run, control + 1 factor, 1 shim run; baseline: its reference and 1 re-run.
    assert.equal(await s.repro().runCount(path.resolve(corpus), 'local-time'), 6);
    await s.close();

    const report = runCli(['report', '--repro', '--store', store, '--format', 'json']);
    assert.equal(report.status, 0, report.stderr);
    const f = JSON.parse(report.stdout);
    assert.deepEqual(f.verdicts.map((v: { count: number }) => v.count), [1, 0, 1]);
    assert.deepEqual([f.shim.b, f.shim.c, f.shim.pValue], [1, 0, 1]);
    assert.equal(f.causes.find((x: { name: string }) => x.name === 'implicit-environment').count, 1);

    const again = runCli(['repro', '--corpus', corpus, '--store', store, '--k', '1', '--vary', 'timezone']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already done in .*: local-time, rename/);
    assert.doesNotMatch(again.stderr, /fresh install/);
  });

  describe('on PostgreSQL', () => {
    let server: Service;
    before(async () => {
      server = await startPostgres();
    });
    after(async () => {
      await server?.stop();
    });

    test('the corpus runs go into a PostgreSQL store; report --repro reads them there; a second run resumes', async () => {
      const corpus = path.join(c.dir, 'corpus-pg.jsonl');
      writeFileSync(corpus, `${line({ id: 'local-time', repo: 'repo', commit: c.commit, patch: 'local-time.patch' })}\n`);
      const url = await createDatabase(server.url, 'corpus');
      const r = await runCliAsync(['repro', '--corpus', corpus, '--store', url, '--k', '1', '--vary', 'timezone', '-q']);
      assert.equal(r.status, 1, r.stderr);
      const rows = await instancesOf(url);
      assert.deepEqual(rows.map((x) => [x.instanceId, x.verdict, x.shimVerdict, x.baselineVerdict, x.k]), [['local-time', 'broken', 'reproducible', 'reproducible', 1]]);
      assert.deepEqual(rows[0]!.causes?.map((x) => x.factor), ['timezone']);
      const s = await ResultsStore.open(url);
      assert.equal(await s.repro().runCount(path.resolve(corpus), 'local-time'), 6, 'the same six runs as on SQLite');
      await s.close();

      const report = await runCliAsync(['report', '--repro', '--store', url, '--format', 'json']);
      assert.equal(report.status, 0, report.stderr);
      assert.deepEqual(JSON.parse(report.stdout).verdicts.map((v: { count: number }) => v.count), [0, 0, 1]);
      const again = await runCliAsync(['repro', '--corpus', corpus, '--store', url, '--k', '1', '--vary', 'timezone']);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /already done in postgres:\/\/postgres@127\.0\.0\.1:\d+\/corpus: local-time/);
    });
  });
});
