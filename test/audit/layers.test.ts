/**
 * `envproof audit` end to end with the real pip and strace (host sandbox), for what the layers must and must not
 * hold, and for audits that stop early:
 * - py-argparse: pip leaves argparse out of `pip list` on purpose; D2 comes from the environment's own metadata;
 * - py-console-script / py-editable: the project's own distribution, installed with `pip install .` or `-e .`, is
 *   never one of its dependencies;
 * - a run that never started has no D3: no D3-based gap or metric, exit 2;
 * - a failed install keeps what was computed (D1, the step, its class, the tail) in the JSON.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { auditJson, runCli } from '../helpers/cli.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const audit = (fixture: string, ...extra: string[]) => auditJson(path.join(FIXTURES, fixture), ...extra);

const pinned = (layer: { name: string; version?: string }[]) => layer.map((d) => `${d.name}@${d.version}`).sort();
const names = (layer: { name: string }[] | null) => (layer ?? []).map((d) => d.name).sort();

describe('D2 is every distribution installed, not what pip list shows', () => {
  test('argparse 1.4.0, which pip list hides, is in D2', () => {
    const { report } = audit('py-argparse', '--keep');
    try {
      assert.deepEqual(pinned(report.layers.installed), ['argparse@1.4.0', 'six@1.16.0']);
      // The standard library's argparse is the one imported, so the installed backport is never loaded.
      assert.deepEqual(names(report.layers.traced), ['six']);
      assert.deepEqual(report.gaps.bloat, ['argparse']);
      // Second route: the venv's own site-packages, and pip list, which leaves argparse out.
      const python = path.join(report.workDir, 'env', 'venv', 'bin', 'python');
      const site = spawnSync(python, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).stdout.trim();
      assert.ok(readdirSync(site).includes('argparse-1.4.0.dist-info'));
      const listed = spawnSync('python3', ['-m', 'pip', '--python', python, 'list', '--format=freeze'], { encoding: 'utf8' });
      assert.equal(listed.status, 0, listed.stderr);
      assert.match(listed.stdout, /^six==1\.16\.0$/m);
      assert.doesNotMatch(listed.stdout, /argparse/i, 'pip list hides argparse: the reason D2 does not ask it');
    } finally {
      if (report.workDir) rmSync(report.workDir, { recursive: true, force: true });
    }
  });
});

describe('the project is never its own dependency', () => {
  test('pip install . and the console script: the own distribution is traced from site-packages, and left out', () => {
    const { status, report } = audit('py-console-script', '--keep');
    try {
      assert.equal(report.run.command, 'wordcount');
      assert.match(report.run.reason, /console script "wordcount"/);
      assert.equal(report.run.outputTail.trim(), '9');
      const site = path.join(report.workDir, 'env', 'venv', 'lib');
      const installedOwn = readdirSync(site).some((py) => existsSync(path.join(site, py, 'site-packages', 'wordcount_cli', '__init__.py')));
      assert.ok(installedOwn, 'the program ran from the installed copy, which the trace sees');
      assert.deepEqual(report.ownPackages, ['wordcount-cli']);
      assert.deepEqual(names(report.layers.declared), ['six']);
      assert.deepEqual(names(report.layers.installed), ['six']);
      assert.deepEqual(names(report.layers.traced), ['six']);
      assert.deepEqual(report.gaps.hidden, []);
      assert.equal(status, 0);
    } finally {
      if (report.workDir) rmSync(report.workDir, { recursive: true, force: true });
    }
  });

  test('-e . in requirements.txt: not in D1 (which names the local project), D2 or D3', () => {
    const { report } = audit('py-editable', '--run', 'wordcount');
    assert.equal(report.run.success, true, report.run.outputTail);
    assert.deepEqual(report.ownPackages, ['wordcount-cli']);
    assert.deepEqual(names(report.layers.declared), ['six']);
    assert.deepEqual(names(report.layers.installed), ['six']);
    assert.deepEqual(names(report.layers.traced), ['six']);
  });
});

describe('a run that never started', () => {
  test('a command that does not exist: D3 unknown, no D3-based gaps or metrics, exit 2', () => {
    const { status, report, stderr } = audit('py-argparse', '--run', 'no-such-program --demo');
    assert.equal(status, 2);
    assert.equal(report.run.started, false);
    assert.equal(report.run.success, false);
    assert.equal(report.run.exitCode, 127);
    assert.match(report.run.notStarted, /^command not found \(.*no-such-program: not found\)$/);
    assert.equal(report.layers.traced, null);
    assert.equal(report.layerCounts.traced, null);
    assert.deepEqual(report.gaps, { phantom: null, hidden: null, bloat: null, transitive: [] });
    assert.equal(report.metrics.n3, null);
    assert.equal(report.metrics.precision, null);
    assert.equal(report.metrics.phantomRate, null);
    assert.equal(report.metrics.inflation, 1, 'D1 and D2 are known: inflation stays');
    assert.deepEqual(report.alternativeMetrics, {});
    assert.match(stderr, /never started/);
  });

  test('--fail-on does not turn it into findings, and the text says so', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'py-argparse'), '--sandbox', 'host', '-q', '--run', './main.py', '--fail-on', 'run']);
    assert.equal(r.status, 2);
    assert.match(r.stdout, /never started: command could not be executed \(.*Permission denied\)/);
    assert.match(r.stdout, /phantom\s+\?\s+unknown: the program never started/);
    assert.match(r.stdout, /D3 traced \(unknown\)/);
  });

  test('a program that started and failed is still a finding (exit 1), with D3', () => {
    const { status, report } = audit('py-argparse', '--run', 'python main.py --no-such-option');
    assert.equal(report.run.started, true);
    assert.equal(report.run.exitCode, 2);
    assert.ok(Array.isArray(report.layers.traced));
    assert.equal(status, 1);
  });
});

describe('a failed install keeps what was computed', () => {
  test('the JSON holds D1, the failing step, its class and the tail, beside the error', () => {
    const { status, report } = audit('py-missing-package');
    assert.equal(status, 2);
    assert.equal(report.schemaVersion, 1);
    assert.equal(report.ecosystem, 'python');
    assert.equal(report.manifest, 'requirements.txt');
    assert.deepEqual(pinned(report.layers.declared), ['envproof-this-package-does-not-exist-7f3a@1.0.0']);
    assert.equal(report.layers.installed, undefined, 'the install failed: no D2');
    assert.equal(report.error.step, 'install');
    assert.equal(report.error.class, 'no-such-package');
    assert.match(report.error.output, /envproof-this-package-does-not-exist-7f3a/);
    assert.ok(report.sandbox.backend === 'host');
  });
});
