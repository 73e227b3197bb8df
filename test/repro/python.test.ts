import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { assertCause, FIXTURES, reproFixture, settingOf } from './helpers.js';

describe('repro: Python fixtures, one per cause, each attributed', () => {
  test('timezone (a umask variation beside it, tried first, is no cause)', async () => {
    const r = await reproFixture('py-timezone', 'pytest -q', ['umask', 'timezone']);
    assert.equal(r.verdict, 'broken');
    assert.deepEqual(r.reference.outcome.tests, { 'test_report::test_report_hour': 'passed' });
    assertCause(r, 'timezone', 'implicit-environment', 'test_report::test_report_hour: passed → failed');
    // umask tried first and found no cause; the attribution stopped at timezone, so the drawn hash seed was never tried.
    assert.deepEqual(r.attribution, { mode: 'first-cause', order: ['umask', 'timezone', 'hash-seed'], notTried: ['hash-seed'] });
    assert.deepEqual(r.attributionRuns!.map((x) => [x.role, x.variation.filter((s) => s.mode === 'varied').map((s) => s.factor), x.matches]), [['control', [], true], ['factor', ['umask'], true], ['factor', ['timezone'], false]]);
    // One install, the reference run's; every other run got a copy of it (the control too: it pins the dependencies to the reference date, when that install resolved them).
    assert.deepEqual([...r.runs, ...r.attributionRuns!].map((x) => x.install), ['fresh', 'reused', 'reused', 'reused', 'reused']);
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

  test('a hash seed left to chance: every run draws and records it, the control replays the reference\'s, attribution varies it', async () => {
    // The fixture's test passes exactly when hash("alpha") is even; what the interpreter says for the two seeds drawn:
    const parity = (seed: number) => spawnSync('python3', ['-c', 'print(hash("alpha") % 2)'], { env: { ...process.env, PYTHONHASHSEED: String(seed) }, encoding: 'utf8' }).stdout.trim();
    assert.deepEqual([parity(1), parity(3)], ['1', '0']);
    const seeds = [1, 3];
    // Nothing varied: the re-run differs from the reference only by the seed it drew.
    const r = await reproFixture('py-hash-random', 'pytest -q', [], { drawSeed: () => seeds.shift() ?? assert.fail('a third seed was drawn') });
    const id = 'test_shard::test_alpha_goes_to_the_first_shard';
    assert.deepEqual(r.reference.outcome.tests, { [id]: 'failed' });
    assert.deepEqual(settingOf(r, 'reference', 'hash-seed'), { factor: 'hash-seed', mode: 'drawn', value: 'PYTHONHASHSEED=1', applied: true, seed: 1 });
    assert.deepEqual([settingOf(r, 'rerun', 'hash-seed')?.seed, r.runs[1]!.outcome.tests], [3, { [id]: 'passed' }]);
    assert.deepEqual([settingOf(r, 'control', 'hash-seed')?.mode, settingOf(r, 'control', 'hash-seed')?.seed, r.attributionRuns![0]!.matches], ['pinned', 1, true]);
    // One trial per arm (the fixtures' setting): named, with its counts, but too few runs for Fisher's test to decide.
    assertCause(r, 'hash-seed', 'other', new RegExp(`^PYTHONHASHSEED=3: status fail → pass; ${id}: failed → passed \\(differed in 1/1 `));
    assert.deepEqual([r.causes![0]!.statistics?.mismatched, r.causes![0]!.statistics?.trials, r.causes![0]!.statistics?.controlMismatched, r.causes![0]!.statistics?.significant], [1, 1, 0, false]);
  });

  test('a runner that tests nothing (pytest collects no test, exit 5) is a harness failure: exit 2, its last lines, no verdict', () => {
    const r = runCli(['repro', path.join(FIXTURES, 'py-no-tests'), '--cmd', 'pytest -q', '--k', '1', '--vary', 'timezone', '--attribute', '-q']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /envproof: the test command tested nothing, so there is no outcome to reproduce: pytest reported no tests \(exit 5\):\n(.*\n)*no tests ran in /);
    assert.equal(r.stdout, '');
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  });

  test('test tools only in requirements-test.txt: installed in every run after the project, and the report says so', async () => {
    const r = await reproFixture('py-test-deps', 'pytest -q', ['umask']);
    assert.deepEqual([r.verdict, r.reference.outcome.tests], ['reproducible', { 'test_words::test_words': 'passed' }]);
    assert.ok(r.notes.some((n) => n.includes('`pip install -r requirements-test.txt` (found: requirements-test.txt')), r.notes.join('\n'));
  });

  test('without them (--no-test-deps), the missing tool is named with the option that installs it: exit 2', () => {
    const r = runCli(['repro', path.join(FIXTURES, 'py-test-deps'), '--cmd', 'pytest -q', '--k', '1', '--vary', 'umask', '--no-test-deps', '-q']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /envproof: the test command needs pytest, which the fresh environment does not have: pytest -q\n.*--install "pip install -r requirements-test\.txt" \(found: requirements-test\.txt\)/);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
    // Against a reference recorded elsewhere the re-run is the first run: the same error, not "never started".
    const reference = path.join(mkdtempSync(path.join(tmpdir(), 'repro-ref-tools-')), 'reference.json');
    writeFileSync(reference, JSON.stringify({ recordedAt: '2026-11-01T00:00:00Z', outcome: { status: 'pass', tests: { 'test_words::test_words': 'passed' } } }));
    const withFile = runCli(['repro', path.join(FIXTURES, 'py-test-deps'), '--cmd', 'pytest -q', '--k', '1', '--vary', 'umask', '--no-test-deps', '--reference', reference, '-q']);
    assert.equal(withFile.status, 2, withFile.stderr);
    assert.match(withFile.stderr, /envproof: the test command needs pytest, which the fresh environment does not have: pytest -q\n.*--install "pip install -r requirements-test\.txt"/);
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
