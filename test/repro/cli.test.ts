import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { NODE_RUNTIME } from '../../src/ecosystems/javascript/node-runtime.js';
import { FIXTURES } from './helpers.js';

describe('envproof repro (CLI)', () => {
  // Also the Go timezone fixture's attribution (go test -json): cpus, tried first, is no cause.
  test('JSON with --attribute and --shim: verdict, rate, runs, causes, the shim\'s verdict and overhead; exit 1', () => {
    const r = runCli(['repro', path.join(FIXTURES, 'go-timezone'), '--cmd', 'go test ./...', '--k', '1', '--vary', 'cpus,timezone', '--attribute', '--trials', '1', '--shim', '--json', '-q']);
    assert.equal(r.status, 1, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.schemaVersion, 1);
    assert.deepEqual([doc.verdict, doc.rate, doc.k], ['broken', 0, 1]);
    assert.equal(doc.reference.source, 'first-run');
    const rerun = doc.runs.find((x: { role: string }) => x.role === 'rerun');
    assert.deepEqual(Object.keys(rerun).filter((k) => ['variation', 'outcome', 'matches', 'durationMs'].includes(k)).sort(), ['durationMs', 'matches', 'outcome', 'variation']);
    assert.equal(rerun.variation.find((v: { factor: string }) => v.factor === 'timezone').value, 'TZ=Pacific/Kiritimati');
    assert.deepEqual(doc.reference.outcome.tests, { 'example.com/go-timezone.TestReportHour': 'passed' });
    assert.deepEqual(doc.causes.map((c: { factor: string; category: string }) => [c.factor, c.category]), [['timezone', 'implicit-environment']]);
    assert.match(doc.causes[0].evidence, /example\.com\/go-timezone\.TestReportHour: passed → failed/);
    assert.deepEqual(doc.attribution, { mode: 'first-cause', order: ['cpus', 'timezone'], notTried: [] });
    assert.deepEqual(doc.attributionRuns.map((x: { role: string; matches: boolean }) => [x.role, x.matches]), [['control', true], ['factor', true], ['factor', false]]);
    // The shim pins TZ=UTC whatever the run varied: the same test reproduces under it.
    assert.equal(doc.shim.verdict, 'reproducible');
    assert.ok(doc.shim.pins.includes('TZ=UTC'), doc.shim.pins.join('; '));
    // The overhead: the one shim run against the default-environment run just before it.
    assert.deepEqual(doc.shim.defaultRuns.map((x: { role: string; matches: boolean }) => [x.role, x.matches]), [['default', true]]);
    const pair = doc.shim.runs[0].durationMs / doc.shim.defaultRuns[0].durationMs;
    assert.ok(Math.abs(doc.shim.overheadRatio - pair) < 0.001, `${doc.shim.overheadRatio} against ${pair}`);
    assert.deepEqual([doc.shim.overheadSpread.pairs, doc.shim.overheadSpread.min, doc.shim.overheadSpread.max], [1, doc.shim.overheadRatio, doc.shim.overheadRatio]);
  });

  test('a reproducible project: the text table, exit 0', () => {
    const r = runCli(['repro', path.join(FIXTURES, 'go-clean'), '--cmd', 'go test ./...', '--k', '1', '--vary', 'umask,home', '-q']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /verdict reproducible {3}rate 1\.00, 1\/1 \[0\.21, 1\.00\] re-runs match/);
    assert.match(r.stdout, /rerun +pass +yes .*umask 077/);
  });

  test('a project asking for a newer Node than the environment has is refused before the first run, exit 2', () => {
    const r = runCli(['repro', path.join(FIXTURES, 'needs-node22'), '--cmd', 'npm test', '--k', '1', '-q']);
    assert.equal(r.status, 2, r.stderr);
    // The environment's Node is the provision the recipe pins.
    assert.match(r.stderr, new RegExp(`envproof: the project asks for node >=22 \\(package\\.json engines\\.node\\), and the javascript environment has node ${NODE_RUNTIME.node.version.replace(/\./g, '\\.')}\n`));
    assert.doesNotMatch(r.stderr, /fresh install|at .*\.ts:\d+/);
  });

  test('a command that does not exist: a clear error, exit 2', () => {
    const r = runCli(['repro', path.join(FIXTURES, 'go-clean'), '--cmd', 'no-such-test-runner --all', '--k', '1', '-q']);
    assert.equal(r.status, 2);
    // The shell's `not found` for the command's first word: the tool is named, and how to install it.
    assert.match(r.stderr, /^envproof: the test command needs no-such-test-runner, which the fresh environment does not have: no-such-test-runner --all$/m);
    assert.match(r.stderr, /^hint: .*--install "<the command that installs no-such-test-runner>"/m);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  });

  test('bad arguments: clear errors, exit 2, nothing run', () => {
    const cases: [string[], RegExp][] = [
      [[path.join(FIXTURES, 'go-clean')], /repro needs the test command/],
      [[path.join(FIXTURES, 'go-clean'), '--cmd', 'go test', '--vary', 'timezone,moon'], /--vary: unknown factor "moon"/],
      [[path.join(FIXTURES, 'go-clean'), '--cmd', 'go test', '--k', '0'], /--k must be a positive number/],
      [['--attribute', path.join(FIXTURES, 'go-clean'), '--cmd', 'go test'], /--attribute takes "all" or nothing, not ".*go-clean"/],
      [[path.join(FIXTURES, 'no-such-fixture'), '--cmd', 'go test'], /no such directory: .*no-such-fixture\nhint: give the path of the project to reproduce/],
      [[path.join(FIXTURES, 'go-clean'), '--cmd', 'go test', '--as-of', 'yesterday'], /--as-of: "yesterday" is not a date/],
      [[path.join(FIXTURES, 'go-clean'), '--cmd', 'go test', '--reference', path.join(mkdtempSync(path.join(tmpdir(), 'r-')), 'none.json')], /cannot read the reference .*no such file/],
    ];
    for (const [args, message] of cases) {
      const r = runCli(['repro', ...args, '-q']);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  });
});
