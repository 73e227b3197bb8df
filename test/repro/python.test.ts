import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertCause, reproFixture, settingOf } from './helpers.js';

describe('repro: Python fixtures, one per cause, each attributed', () => {
  test('timezone (a umask variation beside it is no cause)', async () => {
    const r = await reproFixture('py-timezone', 'pytest -q', ['timezone', 'umask']);
    assert.equal(r.verdict, 'broken');
    assert.deepEqual(r.reference.outcome.tests, { 'test_report::test_report_hour': 'passed' });
    assertCause(r, 'timezone', 'implicit-environment', 'test_report::test_report_hour: passed → failed');
  });

  test('locale: de_DE.UTF-8 compiled where the test runs, so the format differs rather than setlocale failing', async () => {
    const r = await reproFixture('py-locale', 'pytest -q', ['locale']);
    assertCause(r, 'locale', 'implicit-environment', 'LANG=LC_ALL=de_DE.UTF-8');
    assert.match(r.causes![0]!.evidence, /test_amount::test_amount: passed → failed/);
    // setlocale(LC_ALL, "") succeeded in the varied run: the locale existed there.
    assert.doesNotMatch(r.causes![0]!.evidence, /test_user_locale_is_known/);
    assert.equal(settingOf(r, 'rerun', 'locale')?.applied, true);
  });

  test('cpus: os.cpu_count() sees the one CPU (the CPU lists bound in the sandbox), recorded per query', async () => {
    assert.ok(availableParallelism() > 1, 'the variation shows one CPU of several: this test needs a machine with two or more');
    const r = await reproFixture('py-cpus', 'pytest -q', ['cpus']);
    assertCause(r, 'cpus', 'implicit-environment', 'test_workers::test_runs_in_parallel: passed → failed');
    const s = settingOf(r, 'rerun', 'cpus');
    assert.equal(s?.applied, true);
    assert.match(s?.note ?? '', /seen as 1 by os\.cpu_count\(\), os\.sched_getaffinity\(0\)$/);
  });

  test('a test that fails after a date: the clock, shifted by libfaketime, checked', async () => {
    const r = await reproFixture('py-clock', 'pytest -q', ['clock']);
    assertCause(r, 'clock', 'time-date', 'test_licence::test_licence_valid: passed → failed');
    assert.equal(settingOf(r, 'rerun', 'clock')?.applied, true);
  });

  test('order-dependent tests, shuffled by pytest-random-order with a printed seed', async () => {
    const r = await reproFixture('py-order', 'pytest -q', ['test-order']);
    assertCause(r, 'test-order', 'test-order', /seed 1000/);
    assert.equal(Object.keys(r.reference.outcome.tests ?? {}).length, 4);
  });

  test('a test that needs the network (off by default, on as the variation)', async () => {
    const r = await reproFixture('py-network', 'pytest -q', ['network']);
    assert.equal(r.reference.outcome.status, 'fail');
    assertCause(r, 'network', 'network', 'test_index::test_index_reachable: failed → passed');
  });

  test('hash-seed-dependent output, against a reference recorded under PYTHONHASHSEED=0', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'repro-ref-'));
    const file = path.join(dir, 'reference.json');
    writeFileSync(file, JSON.stringify({ recordedAt: new Date().toISOString(), outcome: { status: 'pass' } }));
    const r = await reproFixture('py-hash-seed', 'pytest -q', ['hash-seed'], { referenceFile: file });
    assert.equal(r.reference.source, 'file');
    assertCause(r, 'hash-seed', 'other', 'PYTHONHASHSEED=1');
  });

  test('a dependency range that resolves differently by date (the dated index)', async () => {
    const r = await reproFixture('py-drift', 'pytest -q', ['dependency-drift'], { asOf: new Date('2022-06-01T00:00:00Z') });
    assert.equal(r.reference.outcome.status, 'pass', JSON.stringify(r.runs[0]));
    assertCause(r, 'dependency-drift', 'dependency-drift', 'test_versions::test_legacy_versions_parse: passed → failed');
    assert.match(settingOf(r, 'control', 'dependency-drift')?.value ?? '', /as of 2022-06-01/);
  });

  test('PATH-dependent tool lookup', async () => {
    assertCause(await reproFixture('py-path', 'pytest -q', ['path']), 'path', 'implicit-environment', 'an extra first PATH entry');
  });

  test('a clean project reproduces under every variation at once, with no causes', async () => {
    const r = await reproFixture('py-clean', 'pytest -q', ['timezone', 'locale', 'clock', 'path', 'home', 'umask', 'cpus', 'test-order', 'hash-seed', 'network', 'dependency-drift']);
    assert.equal(r.verdict, 'reproducible', JSON.stringify(r.runs, null, 1));
    assert.equal(r.rate, 1);
    assert.deepEqual(r.causes, []);
    assert.deepEqual(r.runs[1]!.outcome.tests, { 'test_slug::test_slug': 'passed', 'test_slug::test_empty': 'passed' });
  });
});
