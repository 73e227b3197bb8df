// tier: quick
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { attribute, rateText } from '../../src/repro/attribute.js';
import { fisherExact } from '../../src/metrics/stats.js';
import { differences, median, reproductionRate, verdictOf } from '../../src/repro/compare.js';
import { datedPage } from '../../src/ecosystems/python/dated-index.js';
import { drawnSeeds, shapeOf, type FactorContext } from '../../src/repro/factors.js';
import { parseGoTestJson } from '../../src/repro/outcomes/go-json.js';
import { parseJestJson } from '../../src/repro/outcomes/jest-json.js';
import { parseJunitXml } from '../../src/repro/outcomes/junit.js';
import { parseNodeTap } from '../../src/repro/outcomes/node-tap.js';
import { detectRunner, withRunnerArgs } from '../../src/repro/outcomes/runners.js';
import { readReferenceFile } from '../../src/repro/reference.js';
import type { FactorId, RunnerId, RunRecord } from '../../src/repro/types.js';
import type { EcosystemId } from '../../src/core/types.js';
import { ecosystem } from '../../src/ecosystems/index.js';
import { UsageError } from '../../src/core/errors.js';
import { kindOf, type ProjectKind } from '../../src/repro/kinds.js';
import { checkClock } from '../../src/repro/run-checks.js';
import type { AuditContext, InstallResult } from '../../src/ecosystems/types.js';

describe('repro outcome parsers', () => {
  test('JUnit XML (pytest, Surefire, ctest): failure and error fail, skipped skips, nested suites', () => {
    const xml = `<?xml version="1.0"?><testsuites><testsuite name="pytest">
      <testcase classname="test_a" name="test_ok"/>
      <testcase classname="test_a" name="test_bad"><failure message="x">boom</failure></testcase>
      <testcase classname="test_a" name="test_err"><error message="y"/></testcase>
      <testcase classname="test_a" name="test_skip"><skipped/></testcase>
      <testsuite name="inner"><testcase name="lone"/></testsuite></testsuite></testsuites>`;
    assert.deepEqual(parseJunitXml(xml), { 'test_a::test_ok': 'passed', 'test_a::test_bad': 'failed', 'test_a::test_err': 'failed', 'test_a::test_skip': 'skipped', lone: 'passed' });
  });

  test('Jest/Vitest JSON: ids relative to the project', () => {
    const json = JSON.stringify({ testResults: [{ name: '/w/project/t/a.test.js', assertionResults: [{ fullName: 'a b', status: 'passed' }, { fullName: 'a c', status: 'failed' }, { fullName: 'a d', status: 'pending' }] }] });
    assert.deepEqual(parseJestJson(json, '/w/project'), { 't/a.test.js › a b': 'passed', 't/a.test.js › a c': 'failed', 't/a.test.js › a d': 'skipped' });
  });

  test('node --test TAP: leaves of nested tests, SKIP directives', () => {
    const tap = ['TAP version 13', '# Subtest: suite', '    # Subtest: inner', '    ok 1 - inner', '      ---', '      ...', '    # Subtest: other', '    not ok 2 - other', '    1..2', 'not ok 1 - suite', 'ok 2 - top # SKIP not here', 'ok 3 - plain', '1..3'].join('\n');
    assert.deepEqual(parseNodeTap(tap), { 'suite > inner': 'passed', 'suite > other': 'failed', top: 'skipped', plain: 'passed' });
  });

  test('go test -json: the last verdict of each test, subtests, noise ignored', () => {
    const lines = [
      '{"Action":"run","Package":"m/p","Test":"TestA"}',
      '{"Action":"pass","Package":"m/p","Test":"TestA"}',
      '{"Action":"fail","Package":"m/p","Test":"TestB/sub"}',
      '{"Action":"skip","Package":"m/p","Test":"TestC"}',
      '{"Action":"pass","Package":"m/p"}',
      'not json',
    ];
    assert.deepEqual(parseGoTestJson(lines.join('\n')), { 'm/p.TestA': 'passed', 'm/p.TestB/sub': 'failed', 'm/p.TestC': 'skipped' });
  });
});

describe('repro runners in command lines', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'repro-runner-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'jest --ci' } }));

  test('runners found directly, args at the end of the simple command that runs them', async () => {
    const m = (await detectRunner('cd sub && go test ./... && echo done', dir))!;
    assert.equal(m.runner, 'go-test');
    assert.equal(withRunnerArgs('cd sub && go test ./... && echo done', m, ['-json']), 'cd sub && go test ./... -json && echo done');
    assert.equal((await detectRunner('python -m pytest -q', dir))?.runner, 'pytest');
    assert.equal((await detectRunner('node --test test/', dir))?.runner, 'node-test');
    assert.equal((await detectRunner('mvn -q test', dir))?.runner, 'surefire');
    assert.equal(await detectRunner('make check', dir), undefined);
  });

  test('npm test: the runner of the test script, args after --', async () => {
    const m = (await detectRunner('npm test', dir))!;
    assert.deepEqual([m.runner, m.viaScript], ['jest', true]);
    assert.equal(withRunnerArgs('npm test', m, ['--json']), 'npm test -- --json');
  });
});

describe('repro comparison, verdicts and attribution', () => {
  test('differences: status and per-test changes, tests present on one side only', () => {
    assert.deepEqual(differences({ status: 'pass', exitCode: 0, tests: { a: 'passed', b: 'passed' } }, { status: 'fail', exitCode: 1, tests: { a: 'failed', c: 'passed' } }), [
      'status pass → fail',
      'a: passed → failed',
      'b: passed → absent',
      'c: absent → passed',
    ]);
    assert.deepEqual(differences({ status: 'pass', exitCode: 0 }, { status: 'pass', exitCode: 0, tests: { a: 'passed' } }), []);
  });

  test('rate and verdict', () => {
    assert.equal(verdictOf(reproductionRate([true, true])), 'reproducible');
    assert.equal(verdictOf(reproductionRate([true, false, false])), 'flaky');
    assert.equal(reproductionRate([true, false, false]), 1 / 3);
    assert.equal(verdictOf(reproductionRate([false])), 'broken');
    assert.equal(median([3, 1, 2, 10]), 2.5);
  });

  /**
   * A project whose outcome changes exactly when every factor of `together` is varied, and besides on the calls
   * (counted from 0) that `race` names, whatever is varied.
   */
  function project(together: FactorId[], unappliable: FactorId[] = [], race: (call: number) => boolean = () => false) {
    const calls: FactorId[][] = [];
    const run = async (varied: readonly FactorId[], role: RunRecord['role']): Promise<RunRecord> => {
      calls.push([...varied]);
      const applied = varied.filter((f) => !unappliable.includes(f));
      const differs = (together.length > 0 && together.every((f) => applied.includes(f))) || race(calls.length - 1);
      return {
        role,
        variation: varied.map((f) => ({ factor: f, mode: 'varied' as const, value: `${f} varied`, applied: !unappliable.includes(f) })),
        outcome: { status: differs ? 'fail' : 'pass', exitCode: differs ? 1 : 0 },
        matches: !differs,
        differences: differs ? ['status pass → fail'] : [],
        durationMs: 1,
        installMs: 1,
      };
    };
    return { run, calls };
  }

  const ONCE = { maxTrials: 1, alpha: 0.05 };

  test('Fisher\'s exact test and the Wilson interval against values worked by hand', () => {
    // [[0,4],[4,0]]: only it and its mirror are that unlikely, each 1/C(8,4): p = 2/70.
    assert.ok(Math.abs(fisherExact(0, 4, 4, 0) - 2 / 70) < 1e-12);
    // [[1,3],[3,1]] (the tea-tasting table): (1 + 16 + 16 + 1)/70.
    assert.ok(Math.abs(fisherExact(1, 3, 3, 1) - 34 / 70) < 1e-12);
    assert.equal(fisherExact(0, 1, 1, 0), 1);
    assert.equal(fisherExact(0, 3, 0, 3), 1);
    // Wilson at 0 of 4: centre = half-width = (z²/8)/(1 + z²/4) with z = 1.96, 0.245.
    assert.equal(rateText(0, 4), '0/4 [0.00, 0.49]');
    assert.equal(rateText(1, 1), '1/1 [0.21, 1.00]');
  });

  test('one trial per arm: a single cause, named but said to be untested against chance', async () => {
    const p = project(['locale']);
    const a = await attribute(['timezone', 'locale', 'umask'], 0, p.run, ONCE);
    assert.deepEqual(a.causes.map((c) => [c.factor, c.category, c.statistics?.significant]), [['locale', 'implicit-environment', false]]);
    assert.match(a.causes[0]!.evidence, /locale varied: status pass → fail \(differed in 1\/1 \[0\.21, 1\.00\] of its runs, the control in 0\/1 \[0\.00, 0\.79\]; Fisher's exact p = 1\.000: too few trials/);
    assert.deepEqual(p.calls, [[], ['timezone'], ['locale'], ['umask']]);
  });

  test('repeated until Fisher\'s test separates cause from control, then stopped; factors that never differed are run once', async () => {
    const p = project(['locale']);
    const a = await attribute(['timezone', 'locale', 'umask'], 0, p.run, { maxTrials: 6, alpha: 0.05 });
    assert.deepEqual(a.causes.map((c) => c.factor), ['locale']);
    // 4 against 4 is the first complete separation below 0.05 (2/70); 3 against 3 gives 2/20.
    assert.deepEqual([a.causes[0]!.statistics?.trials, a.causes[0]!.statistics?.controlTrials, a.causes[0]!.statistics?.significant], [4, 4, true]);
    assert.equal(p.calls.filter((c) => c.length === 0).length, 4);
    assert.equal(p.calls.filter((c) => c[0] === 'timezone').length, 1);
    assert.equal(a.runs.length, 10);
  });

  test('a race: a factor that differed once by chance is no cause; the control varying alone is `nondeterministic`', async () => {
    // Calls 1 and 5 differ whatever is varied: the first timezone run, then the third control run.
    const p = project([], [], (call) => call % 4 === 1);
    const a = await attribute(['timezone', 'umask'], 0, p.run, { maxTrials: 6, alpha: 0.05 });
    assert.deepEqual(a.causes.map((c) => [c.factor, c.category]), [['nondeterministic', 'other']]);
    assert.match(a.causes[0]!.evidence, /with every factor pinned the outcome still differed in 1\/3 \[0\.06, 0\.79\] of the runs/);
    // Stopped when timezone could no longer reach significance in 6 runs (1 of 3 against 1 of 3), not at the limit.
    assert.deepEqual([p.calls.filter((c) => c.length === 0).length, p.calls.filter((c) => c[0] === 'timezone').length], [3, 3]);
  });

  test('factors that act only together are narrowed to the smallest set', async () => {
    const p = project(['timezone', 'clock']);
    const a = await attribute(['timezone', 'locale', 'clock', 'umask'], 0, p.run);
    assert.deepEqual(a.causes.map((c) => c.factor), ['timezone', 'clock']);
    assert.match(a.causes[0]!.evidence, /only together \(timezone \+ clock\)/);
  });

  test('a control that never matches, repeated to the limit: broken regardless; what no factor explains is `unknown`, never no cause', async () => {
    let controls = 0;
    const broken = await attribute(['locale'], 0, async (varied, role) => {
      if (varied.length === 0) controls++;
      return { ...(await project([]).run(varied, role)), matches: false, differences: ['status pass → fail'] };
    }, { maxTrials: 3, alpha: 0.05 });
    assert.deepEqual(broken.causes.map((c) => [c.factor, c.category]), [['unknown', 'other']]);
    assert.match(broken.causes[0]!.evidence, /still differs in 3\/3 .* regardless of the environment/);
    assert.equal(controls, 3);
    const p = project(['clock'], ['clock']);
    const a = await attribute(['clock'], 0, p.run);
    assert.deepEqual(a.causes.map((c) => c.factor), ['unknown']);
    assert.match(a.causes[0]!.evidence, /no factor tried changed the outcome \(none could be applied\)/);
  });
});

describe('repro factors', () => {
  const order = (id: EcosystemId, runner: RunnerId) => ecosystem(id).repro!.testOrder[runner]!;
  const ctx: FactorContext = { index: 0, referenceDate: new Date('2024-03-01T12:00:00Z'), now: new Date('2026-01-01T00:00:00Z'), order: order('javascript', 'jest'), datedResolution: { supported: true } };

  test('varied and pinned values, each recorded', () => {
    const shape = shapeOf(['timezone', 'test-order', 'clock'], ['locale', 'network', 'dependency-drift', 'timezone'], ctx);
    assert.equal(shape.env.TZ, 'Pacific/Kiritimati');
    assert.equal(shape.env.LANG, 'C.UTF-8');
    assert.deepEqual(shape.runnerArgs, ['--randomize', '--seed=1000']);
    assert.equal(shape.indexDate, '2024-03-01T12:00:00.000Z');
    assert.equal(shape.network, false);
    assert.equal(shape.clock?.faketime, '+1000d');
    assert.equal(shape.clock?.expectMs, Date.parse('2026-01-01T00:00:00Z') + 1000 * 86_400_000);
    assert.deepEqual(shape.settings.map((s) => `${s.factor}:${s.mode}`).sort(), ['clock:varied', 'dependency-drift:pinned', 'locale:pinned', 'network:pinned', 'test-order:varied', 'timezone:varied']);
  });

  test('a varied locale is one to compile in the run, a pinned one is not; fewer CPUs both by affinity and as seen', () => {
    const varied = shapeOf(['locale', 'cpus'], [], { ...ctx, index: 1 });
    assert.deepEqual([varied.locale, varied.env.LC_ALL], ['tr_TR.UTF-8', 'tr_TR.UTF-8']);
    assert.deepEqual([varied.visibleCpus, varied.prefix], [1, ['taskset', '--cpu-list', '0']]);
    const pinned = shapeOf([], ['locale', 'cpus'], ctx);
    assert.deepEqual([pinned.locale, pinned.visibleCpus, pinned.prefix], [undefined, undefined, []]);
  });

  test('factors random by default are drawn and recorded; pinned they replay the reference, varied they take the explained re-run', () => {
    const draws = [7, 8];
    const py: FactorContext = { ...ctx, order: order('python', 'pytest'), facts: { shuffler: 'randomly' }, randomByDefault: ['hash-seed'], draw: () => draws.shift()! };
    const drawn = shapeOf([], [], py);
    assert.deepEqual([drawn.env.PYTHONHASHSEED, drawn.pytestOptions], ['7', ['-p randomly --randomly-seed=8']]);
    assert.deepEqual(drawnSeeds(drawn.settings), { 'hash-seed': 7, 'test-order': 8 });
    const control = shapeOf([], ['hash-seed', 'test-order'], { ...py, referenceSeeds: { 'hash-seed': 7, 'test-order': 8 } });
    assert.deepEqual([control.env.PYTHONHASHSEED, control.pytestOptions, control.settings.map((s) => s.mode)], ['7', ['-p randomly --randomly-seed=8'], ['pinned', 'pinned']]);
    const tried = shapeOf(['hash-seed'], ['test-order'], { ...py, triedSeeds: { 'hash-seed': 99 } });
    assert.deepEqual([tried.env.PYTHONHASHSEED, tried.pytestOptions], ['99', ['-p no:randomly']]);
    // Without a draw (the shim's values given by a reference file): 0 and the natural order, nothing drawn.
    assert.deepEqual(shapeOf([], ['hash-seed'], { ...ctx, randomByDefault: ['hash-seed'] }).env.PYTHONHASHSEED, '0');
    assert.deepEqual(draws, []);
  });

  test('the pinned clock starts at the reference date; a runner without a shuffle says so', () => {
    assert.equal(shapeOf([], ['clock'], ctx).clock?.faketime, '@2024-03-01 12:00:00');
    const unshuffled = shapeOf(['test-order'], [], { ...ctx, order: order('javascript', 'node-test') }).settings[0]!;
    const noRunner = shapeOf(['test-order'], [], { ...ctx, order: undefined }).settings[0]!;
    assert.deepEqual([noRunner.applied, noRunner.note], [false, 'the command\'s test runner is not one envproof knows how to shuffle']);
    assert.deepEqual([unshuffled.applied, unshuffled.note], [false, "node --test has no shuffle option in Node 20, the environment's Node"]);
  });
});

describe('repro inputs', () => {
  test('the dated index lists only files uploaded by the date, and refuses an index without upload times', () => {
    const files = [
      { filename: 'p-1.0.tar.gz', url: 'https://f/p-1.0.tar.gz', hashes: { sha256: 'aa' }, 'upload-time': '2020-01-01T00:00:00Z' },
      { filename: 'p-2.0.tar.gz', url: 'https://f/p-2.0.tar.gz', 'requires-python': '>=3.8', 'upload-time': '2023-01-01T00:00:00Z' },
    ];
    const page = datedPage('p', files, new Date('2021-01-01'))!;
    assert.match(page, /href="https:\/\/f\/p-1\.0\.tar\.gz#sha256=aa">p-1\.0\.tar\.gz</);
    assert.doesNotMatch(page, /p-2\.0/);
    assert.match(datedPage('p', files, new Date('2024-01-01'))!, /data-requires-python="&gt;=3\.8">p-2\.0/);
    assert.equal(datedPage('p', [{ filename: 'x', url: 'u' }], new Date()), null);
  });

  test('reference files: bad JSON, missing date, bad status are clear errors', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'repro-refs-'));
    const write = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    await assert.rejects(readReferenceFile(write('a.json', '{')), /is not JSON/);
    await assert.rejects(readReferenceFile(write('b.json', '{"outcome":{"status":"pass"}}')), /has no "recordedAt"/);
    await assert.rejects(readReferenceFile(write('c.json', '{"recordedAt":"2024-01-01","outcome":{"status":"ok"}}')), /"status" must be one of pass, fail/);
    await assert.rejects(readReferenceFile(path.join(dir, 'none.json')), /no such file/);
    const ok = await readReferenceFile(write('d.json', '{"reference":{"recordedAt":"2024-01-01","outcome":{"status":"fail","tests":{"t":"failed"}}}}'));
    assert.deepEqual(ok.outcome, { status: 'fail', exitCode: null, tests: { t: 'failed' } });
  });
});

describe('repro corpus figures', () => {
  test('exact McNemar against the binomial by hand', async () => {
    const { mcnemarExact } = await import('../../src/repro/corpus-stats.js');
    // b = 5, c = 0: p = 2 · 0.5^5 = 0.0625; b = 3, c = 1: 2 · (1 + 4) / 16 = 0.625.
    assert.equal(mcnemarExact(5, 0), 0.0625);
    assert.ok(Math.abs(mcnemarExact(3, 1) - 0.625) < 1e-12);
    assert.equal(mcnemarExact(0, 0), 1);
    assert.equal(mcnemarExact(4, 4), 1);
  });

  test('the drift half-life recovers the one that generated the data, inside its interval', async () => {
    const { driftHalfLife } = await import('../../src/repro/corpus-stats.js');
    // Expected drift fraction at age t for a 47-day half-life: 1 − 2^(−t/47), laid out exactly over ages 1..400.
    const obs = [];
    for (let t = 1; t <= 400; t++) {
      const p = 1 - 2 ** (-t / 47);
      for (let j = 0; j < 10; j++) obs.push({ ageDays: t, drifted: j < Math.round(p * 10) });
    }
    const h = driftHalfLife(obs);
    assert.ok(h.days !== null && Math.abs(h.days - 47) < 3, String(h.days));
    assert.ok(h.ci![0] < h.days! && h.days! < h.ci![1]);
    assert.equal(driftHalfLife([{ ageDays: 10, drifted: false }]).days, null);
  });
});

describe('repro kinds', () => {
  test('an ecosystem whose module has no repro part is refused as not supported, by name', () => {
    const { repro: _, ...go } = ecosystem('go');
    assert.throws(() => kindOf(go), (err: unknown) => err instanceof UsageError && err.message === 'repro does not support go (Go) yet');
    assert.equal(kindOf(ecosystem('go')).clockLimit, ecosystem('go').repro!.clockLimit);
  });
});

describe('the clock probe', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const ctx = {} as AuditContext;
  const install = {} as InstallResult;
  const kind: ProjectKind = { ...kindOf(ecosystem('cpp')), clockLimit: 'no libc', run: (command) => ({ argv: ['/bin/sh', '-c', command], reason: 'test' }) };
  const factorCtx: FactorContext = { index: 0, referenceDate: new Date(now), now: new Date(now), datedResolution: { supported: true } };
  /** Checks the clock of `shape` with a runtime that prints `prints` (seconds), recording the probe's argv. */
  async function check(varied: boolean, prints: number) {
    const shape = shapeOf(varied ? ['clock'] : [], varied ? [] : ['clock'], factorCtx);
    const argvs: (readonly string[])[] = [];
    await checkClock(kind, ctx, install, shape, async (argv) => (argvs.push(argv), { exitCode: 0, signal: null, stdout: `${prints}\n`, stderr: '', durationMs: 1, timedOut: false }), now);
    return { setting: shape.settings.find((s) => s.factor === 'clock')!, argv: argvs[0]! };
  }

  test('a clock pinned near the present is probed at a pin far from it, so a runtime libfaketime misses is caught', async () => {
    const missed = await check(false, now / 1000);
    assert.deepEqual(missed.argv.slice(0, 2), ['env', 'FAKETIME=@2001-09-09 01:46:40']);
    assert.equal(missed.setting.applied, false);
    assert.equal(missed.setting.note, "libfaketime did not reach the cpp runtime's clock (a probe pinned at 2001-09-09T01:46:40.000Z read 2026-01-01T00:00:00.000Z): no libc");
    const reached = await check(false, 1_000_000_000);
    assert.deepEqual([reached.setting.applied, reached.setting.note], [true, undefined]);
  });

  test('a clock shifted far from the present is probed with its own shift', async () => {
    const missed = await check(true, now / 1000);
    assert.equal(missed.argv[0], '/bin/sh');
    assert.equal(missed.setting.applied, false);
    const reached = await check(true, now / 1000 + 1000 * 86_400);
    assert.equal(reached.setting.applied, true);
  });
});
