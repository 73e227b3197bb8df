import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, runCliAsync } from '../helpers/cli.js';
import { createDatabase, startPostgres, type Service } from '../helpers/services.js';
import { ResultsStore } from '../../src/store/store.js';
import { corpusLine as line, corpusRepo } from './corpus-fixture.js';

async function instancesOf(spec: string) {
  const s = await ResultsStore.open(spec);
  try {
    return await s.repro().instances();
  } finally {
    await s.close();
  }
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
    assert.equal(existsSync(store), false, 'the input is checked before the store is opened: no store is created');
    r = runCli(['repro', '--corpus', path.join(c.dir, 'no-such.jsonl'), '--store', store, '-q']);
    assert.equal(r.status, 2);
    assert.equal(existsSync(store), false);
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
    const r = runCli(['repro', '--corpus', corpus, '--store', store, '--k', '1', '--trials', '1', '--vary', 'timezone', '-q']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^repro corpus: 2 instances$/m);
    // Only the timezone was varied, and Go has no dated resolution anyway: drift is counted nowhere.
    assert.match(r.stdout, /^local-time +go +broken 0\.00 \[0\.00, 0\.79\] of 1 +reproducible 1\.00 \[0\.21, 1\.00\] of 1 +reproducible 1\.00 \[0\.21, 1\.00\] of 1 +timezone +not tested \(not varied\)$/m);
    assert.match(r.stdout, /^Dependency drift: 0 of 0 tested drifted; 2 not tested \(not varied\); no half-life/m);
    const s = await ResultsStore.open(store);
    const rows = await s.repro().instances();
    assert.deepEqual(rows.map((x) => [x.instanceId, x.verdict, x.shimVerdict, x.baselineVerdict]), [
      ['local-time', 'broken', 'reproducible', 'reproducible'],
      ['rename', 'reproducible', 'reproducible', 'reproducible'],
    ]);
    assert.deepEqual(rows[0]!.causes?.map((x) => x.factor), ['timezone']);
    // patched: 1 re-run, control + 1 factor, 1 default-environment run and 1 shim run beside it; baseline: its reference and 1 re-run.
    assert.equal(await s.repro().runCount(path.resolve(corpus), 'local-time'), 7);
    await s.close();

    const report = runCli(['report', '--repro', '--store', store, '--format', 'json']);
    assert.equal(report.status, 0, report.stderr);
    const f = JSON.parse(report.stdout);
    assert.deepEqual(f.verdicts.map((v: { count: number }) => v.count), [1, 0, 1]);
    assert.deepEqual([f.shim.b, f.shim.c, f.shim.pValue], [1, 0, 1]);
    assert.equal(f.causes.find((x: { name: string }) => x.name === 'implicit-environment').count, 1);
    assert.deepEqual(f.rows.map((x: { id: string; causes: { factor: string }[]; drift: { tested: boolean } }) => [x.id, x.causes.map((c) => c.factor), x.drift.tested]), [['local-time', ['timezone'], false], ['rename', [], false]]);

    const again = runCli(['repro', '--corpus', corpus, '--store', store, '--k', '1', '--trials', '1', '--vary', 'timezone']);
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
      const r = await runCliAsync(['repro', '--corpus', corpus, '--store', url, '--k', '1', '--trials', '1', '--vary', 'timezone', '-q']);
      assert.equal(r.status, 1, r.stderr);
      const rows = await instancesOf(url);
      assert.deepEqual(rows.map((x) => [x.instanceId, x.verdict, x.shimVerdict, x.baselineVerdict, x.k]), [['local-time', 'broken', 'reproducible', 'reproducible', 1]]);
      assert.deepEqual(rows[0]!.causes?.map((x) => x.factor), ['timezone']);
      const s = await ResultsStore.open(url);
      assert.equal(await s.repro().runCount(path.resolve(corpus), 'local-time'), 7, 'the same seven runs as on SQLite');
      await s.close();

      const report = await runCliAsync(['report', '--repro', '--store', url, '--format', 'json']);
      assert.equal(report.status, 0, report.stderr);
      assert.deepEqual(JSON.parse(report.stdout).verdicts.map((v: { count: number }) => v.count), [0, 0, 1]);
      const again = await runCliAsync(['repro', '--corpus', corpus, '--store', url, '--k', '1', '--trials', '1', '--vary', 'timezone']);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /already done in postgres:\/\/postgres@127\.0\.0\.1:\d+\/corpus: local-time/);
    });
  });
});
