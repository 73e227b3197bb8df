// tier: quick
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { attribute, rateText } from '../../src/repro/attribute.js';
import { attributionOrder, shimRuns } from '../../src/repro/repro.js';
import { fisherExact } from '../../src/metrics/stats.js';
import { differences, reproductionRate, verdictOf } from '../../src/repro/compare.js';
import { median } from '../../src/metrics/stats.js';
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

  const ONCE = { maxTrials: 1, alpha: 0.05, stopAtFirstCause: false };
  const ALL = { maxTrials: 6, alpha: 0.05, stopAtFirstCause: false };

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
    const a = await attribute(['timezone', 'locale', 'umask'], 0, p.run, ALL);
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
    const a = await attribute(['timezone', 'umask'], 0, p.run, ALL);
    assert.deepEqual(a.causes.map((c) => [c.factor, c.category]), [['nondeterministic', 'other']]);
    assert.match(a.causes[0]!.evidence, /with every factor pinned the outcome still differed in 1\/3 \[0\.06, 0\.79\] of the runs/);
    // Stopped when timezone could no longer reach significance in 6 runs (1 of 3 against 1 of 3), not at the limit.
    assert.deepEqual([p.calls.filter((c) => c.length === 0).length, p.calls.filter((c) => c[0] === 'timezone').length], [3, 3]);
  });

  test('no factor varied: the control is repeated until it differs once (`nondeterministic`), or to the limit (`unknown`)', async () => {
    const p = project([], [], (call) => call === 2);
    const a = await attribute([], 0, p.run, ALL);
    assert.deepEqual([a.causes.map((c) => c.factor), p.calls.length], [['nondeterministic'], 3]);
    assert.match(a.causes[0]!.evidence, /still differed in 1\/3 \[0\.06, 0\.79\]/);
    const never = project([]);
    const b = await attribute([], 0, never.run, ALL);
    assert.deepEqual([b.causes.map((c) => c.factor), never.calls.length], [['unknown'], 6]);
    assert.match(b.causes[0]!.evidence, /\(none was varied\), and the control never differed in 6 runs/);
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
    }, { maxTrials: 3, alpha: 0.05, stopAtFirstCause: false });
    assert.deepEqual(broken.causes.map((c) => [c.factor, c.category]), [['unknown', 'other']]);
    assert.match(broken.causes[0]!.evidence, /still differs in 3\/3 .* regardless of the environment/);
    assert.equal(controls, 3);
    const p = project(['clock'], ['clock']);
    const a = await attribute(['clock'], 0, p.run);
    assert.deepEqual(a.causes.map((c) => c.factor), ['unknown']);
    assert.match(a.causes[0]!.evidence, /no factor tried changed the outcome \(none could be applied\)/);
  });

  test('by default attribution stops at the first factor that is a cause; the others are not tried, and said so', async () => {
    const first = project(['locale']);
    const a = await attribute(['timezone', 'locale', 'umask', 'clock'], 0, first.run);
    assert.deepEqual([a.causes.map((c) => c.factor), a.causes[0]!.statistics?.significant, a.notTried], [['locale'], true, ['umask', 'clock']]);
    // The control and locale to 4 against 4 (p = 2/70), timezone once (it never differed): 9 runs, in this order.
    assert.deepEqual(first.calls, [[], ['timezone'], ['locale'], [], ['locale'], [], ['locale'], [], ['locale']]);
    // --attribute all: the same cause, with umask and clock tried once each besides.
    const every = project(['locale']);
    const b = await attribute(['timezone', 'locale', 'umask', 'clock'], 0, every.run, ALL);
    assert.deepEqual([b.causes.map((c) => c.factor), b.notTried, every.calls.length], [['locale'], [], 11]);
    assert.deepEqual(every.calls.slice(0, 5), [[], ['timezone'], ['locale'], ['umask'], ['clock']]);
  });

  test('stopping at the first cause: a factor not applied is passed over, no cause tries them all, a broken control ends it', async () => {
    const skipped = project(['umask'], ['clock']);
    const a = await attribute(['clock', 'umask', 'home'], 0, skipped.run, { ...ONCE, stopAtFirstCause: true });
    assert.deepEqual([a.causes.map((c) => c.factor), a.notTried, skipped.calls], [['umask'], ['home'], [[], ['clock'], ['umask']]]);
    // A race (the first timezone run and the second control run differ): timezone can no longer be told from the
    // control (1 of 2 each), so umask is tried too before `nondeterministic` is named.
    const race = project([], [], (call) => call === 1 || call === 2);
    const r = await attribute(['timezone', 'umask'], 0, race.run);
    assert.deepEqual([r.causes.map((c) => c.factor), r.notTried], [['nondeterministic'], []]);
    assert.deepEqual(race.calls, [[], ['timezone'], [], ['timezone'], ['umask']]);
    // A control that never matches is `unknown` whatever the factors do: the next factor is not started.
    const controls: FactorId[][] = [];
    const broken = await attribute(['locale', 'timezone'], 0, async (varied, role) => {
      controls.push([...varied]);
      return { ...(await project([]).run(varied, role)), matches: false, differences: ['status pass → fail'] };
    }, { maxTrials: 3, alpha: 0.05, stopAtFirstCause: true });
    assert.deepEqual([broken.causes.map((c) => c.factor), broken.notTried, controls], [['unknown'], ['timezone'], [[], ['locale'], [], []]]);
  });

  test('the order attribution tries: the factors the differing re-run applied first, then those it could not apply', () => {
    const setting = (factor: FactorId, applied: boolean, mode: 'varied' | 'drawn' | 'pinned' = 'varied') => ({ factor, mode, value: factor, applied });
    const rerun: RunRecord = {
      role: 'rerun', outcome: { status: 'fail', exitCode: 1 }, matches: false, differences: [], durationMs: 1, installMs: 1,
      variation: [setting('clock', false), setting('test-order', false), setting('timezone', true), setting('hash-seed', true, 'drawn'), setting('network', true, 'pinned')],
    };
    assert.deepEqual(attributionOrder(['clock', 'test-order', 'timezone', 'network', 'hash-seed'], rerun), ['timezone', 'hash-seed', 'clock', 'test-order', 'network']);
  });

  test('the shim\'s overhead: each shim run just after a default-environment run, the median of the pairwise ratios and their spread', async () => {
    const order: string[] = [];
    const timed = (role: RunRecord['role'], ms: number[]) => async (i: number): Promise<RunRecord> => {
      order.push(`${role} ${i}`);
      return { role, variation: [], outcome: { status: 'pass', exitCode: 0 }, matches: true, differences: [], durationMs: ms[i]!, installMs: 0 };
    };
    const s = await shimRuns(4, timed('default', [100, 200, 100, 50]), timed('shim', [110, 260, 90, 100]));
    assert.deepEqual(order, ['default 0', 'shim 0', 'default 1', 'shim 1', 'default 2', 'shim 2', 'default 3', 'shim 3']);
    // Ratios 1.1, 1.3, 0.9, 2.0: median (1.1 + 1.3)/2; quartiles at positions 0.75 and 2.25 of the sorted ratios.
    assert.equal(s.overheadRatio, 1.2);
    assert.deepEqual(s.overheadSpread, { min: 0.9, q1: 1.05, q3: 1.475, max: 2, pairs: 4 });
    assert.deepEqual([s.runs.length, s.defaultRuns.length, s.verdict], [4, 4, 'reproducible']);
    // A pair without a test time (a run that never started) is left out of the ratios.
    const none = await shimRuns(1, timed('default', [0]), timed('shim', [5]));
    assert.deepEqual([none.overheadRatio, none.overheadSpread], [null, undefined]);
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

  test('libfaketime keeps the monotonic clock real, except for an ecosystem that asks it shifted too (the JVM)', () => {
    const monotonic = (c: FactorContext) => shapeOf(['clock'], [], c).prefix.find((a) => a.startsWith('FAKETIME_DONT_FAKE_MONOTONIC='));
    assert.equal(monotonic(ctx), 'FAKETIME_DONT_FAKE_MONOTONIC=1');
    assert.equal(ecosystem('python').repro!.fakesMonotonicClock, undefined);
    assert.equal(ecosystem('java').repro!.fakesMonotonicClock, true);
    assert.equal(monotonic({ ...ctx, fakesMonotonicClock: ecosystem('java').repro!.fakesMonotonicClock }), 'FAKETIME_DONT_FAKE_MONOTONIC=0');
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

  test('the hash seed is a factor only where the runtime draws one (Python): elsewhere it is not applied, varied or pinned', () => {
    for (const [varied, pinned] of [[['hash-seed'], []], [[], ['hash-seed']]] as const) {
      const node = shapeOf(varied, pinned, { ...ctx, randomByDefault: [] });
      assert.equal(node.env.PYTHONHASHSEED, undefined);
      assert.deepEqual(node.settings.map((s) => [s.factor, s.applied, s.note]), [['hash-seed', false, "this runtime draws no hash seed at start (PYTHONHASHSEED is Python's)"]]);
    }
  });

  test('a reference\'s recorded environment: pinned factors replay it; a factor it had away from the default is tried at the default', () => {
    const ref: FactorContext = { ...ctx, referenceEnvironment: { timezone: 'Asia/Shanghai', locale: 'de_DE.UTF-8', date: '2025-05-05T05:05:05.000Z' } };
    const control = shapeOf([], ['timezone', 'locale', 'clock'], ref);
    assert.deepEqual([control.env.TZ, control.env.LC_ALL, control.locale, control.clock?.faketime], ['Asia/Shanghai', 'de_DE.UTF-8', 'de_DE.UTF-8', '@2025-05-05 05:05:05']);
    const arm = shapeOf(['timezone'], ['locale'], { ...ref, atDefault: ['timezone'] });
    assert.deepEqual([arm.env.TZ, arm.settings.find((x) => x.factor === 'timezone')?.mode], ['UTC', 'varied']);
    // Without a recorded environment the pinned values are the default environment's, and C.UTF-8 needs no compiling.
    assert.deepEqual([shapeOf([], ['timezone', 'locale'], ctx).env.TZ, shapeOf([], ['locale'], ctx).locale], ['UTC', undefined]);
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
    assert.equal(ok.environment, undefined);
    const withEnv = (environment: unknown) => readReferenceFile(write('e.json', JSON.stringify({ recordedAt: '2024-01-01', outcome: { status: 'pass' }, environment })));
    assert.deepEqual((await withEnv({ timezone: 'Asia/Shanghai', date: '2024-01-01T08:00:00+08:00', seeds: { 'hash-seed': 42 }, platform: 'linux-x64' })).environment, { timezone: 'Asia/Shanghai', date: '2024-01-01T00:00:00.000Z', seeds: { 'hash-seed': 42 }, platform: 'linux-x64' });
    await assert.rejects(withEnv({ timezone: 'Mars/Olympus' }), /environment\.timezone "Mars\/Olympus" is not a time zone/);
    await assert.rejects(withEnv({ seeds: { timezone: 3 } }), /environment\.seeds names "timezone", which takes no seed/);
    await assert.rejects(withEnv({ seeds: { 'hash-seed': 'x' } }), /environment\.seeds\.hash-seed must be a whole number/);
    await assert.rejects(withEnv('UTC'), /"environment" must be an object/);
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

describe('repro install templates', () => {
  test('each run gets its own copy of the installed tree at the same path; nothing a run writes reaches the next; the template is never the run\'s', async () => {
    const { InstallTemplates } = await import('../../src/repro/install-template.js');
    const { createWorkDir } = await import('../../src/audit/workspace.js');
    const project = mkdtempSync(path.join(tmpdir(), 'repro-template-project-'));
    writeFileSync(path.join(project, 'a.txt'), 'project file\n');
    const work = await createWorkDir(project);
    // What an install leaves: a file in the environment, with a mode, and a relative link, as a venv has.
    writeFileSync(path.join(work.env, 'installed.txt'), 'installed\n', { mode: 0o640 });
    symlinkSync('installed.txt', path.join(work.env, 'link'));
    const templates = new InstallTemplates<{ shuffle: string }>();
    await templates.keep('live', work, { installed: [], details: {}, commands: ['pip install'], durationMs: 1 }, { shuffle: 'randomly' });
    const t = templates.get('live')!;
    assert.equal(templates.get('2020-01-01'), undefined);
    assert.ok(templates.holds(work));
    assert.notEqual(t.copy, work.root);
    // The first run writes into its tree and removes a file; the next gets the tree as installed.
    writeFileSync(path.join(work.project, 'left-by-run-1'), 'x');
    rmSync(path.join(work.env, 'installed.txt'));
    await templates.restore(t);
    assert.deepEqual(readdirSync(work.project).sort(), ['a.txt']);
    assert.equal(readFileSync(path.join(work.env, 'link'), 'utf8'), 'installed\n');
    assert.equal(readlinkSync(path.join(work.env, 'link')), 'installed.txt');
    assert.equal(statSync(path.join(work.env, 'installed.txt')).mode & 0o777, 0o640);
    // The template's copy is untouched by what the runs did.
    assert.deepEqual(readdirSync(path.join(t.copy, 'project')).sort(), ['a.txt']);
    assert.deepEqual(t.facts, { shuffle: 'randomly' });
    await templates.dispose();
    assert.deepEqual([existsSync(t.copy), existsSync(work.root)], [false, false]);
  });
});

describe('repro text report', () => {
  test('a note repeated once per run is one line saying in which runs; notes that differ stay apart', async () => {
    const { unappliedNotes } = await import('../../src/repro/text.js');
    const clock = (read: string) => ({ factor: 'clock' as const, mode: 'varied' as const, value: 'clock shifted', applied: false, note: `libfaketime did not shift the go runtime's clock (it read ${read})` });
    const run = (variation: RunRecord['variation'], role: RunRecord['role'] = 'rerun'): RunRecord => ({ role, variation, outcome: { status: 'pass', exitCode: 0 }, matches: true, differences: [], durationMs: 1, installMs: 1 });
    const order = { factor: 'test-order' as const, mode: 'varied' as const, value: 'unchanged', applied: false, note: 'no shuffle' };
    const runs = [run([], 'reference'), ...['2026-12-04T18:00:01Z', '2026-12-04T18:00:09.5Z', '2026-12-04T18:01:00Z'].map((t) => run([clock(t)])), run([order])];
    const notes = unappliedNotes({ runs, attributionRuns: [run([clock('2026-12-04T18:02:00Z')], 'control')] });
    assert.deepEqual(notes, [
      "clock: libfaketime did not shift the go runtime's clock (it read 2026-12-04T18:00:01Z) (in runs 2, 3, 4 and 1 attribution run)",
      'test-order: no shuffle',
    ]);
  });

  test('the factors not tried after the first cause, and the shim\'s overhead with its spread', async () => {
    const { renderReproText } = await import('../../src/repro/text.js');
    const run = (role: RunRecord['role'], matches: boolean): RunRecord => ({ role, variation: [], outcome: { status: matches ? 'pass' : 'fail', exitCode: matches ? 0 : 1 }, matches, differences: [], durationMs: 1000, installMs: 0, install: 'reused' });
    const text = renderReproText({
      schemaVersion: 1, tool: { name: 'envproof', version: 'x' }, project: '/p', command: 'pytest -q', kind: 'python', sandbox: 'bwrap',
      verdict: 'broken', rate: 0, rateInterval: [0, 0.79], k: 1, vary: ['umask', 'timezone', 'locale'],
      reference: { source: 'first-run', recordedAt: '2026-01-01T00:00:00.000Z', outcome: { status: 'pass', exitCode: 0 } },
      runs: [run('reference', true), run('rerun', false)],
      causes: [{ factor: 'timezone', category: 'implicit-environment', evidence: 'TZ=Pacific/Kiritimati: status pass → fail' }],
      attribution: { mode: 'first-cause', order: ['umask', 'timezone', 'locale'], notTried: ['locale'] },
      shim: { verdict: 'reproducible', rate: 1, rateInterval: [0.21, 1], runs: [run('shim', true)], defaultRuns: [run('default', true)], overheadRatio: 1.2, overheadSpread: { min: 0.9, q1: 1.05, q3: 1.475, max: 2, pairs: 4 }, pins: ['TZ=UTC'] },
      notes: [],
    });
    assert.match(text, /^Causes \(stopped at the first cause; not tried: locale; --attribute all tries every factor\)$/m);
    assert.match(text, /overhead 1\.200x \(median of 4 pairs with a default-environment run; IQR 1\.050–1\.475, range 0\.900–2\.000\)$/m);
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
