import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli, runCliAsync } from '../helpers/cli.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');

interface Json {
  [k: string]: any;
}

async function audit(fixture: string, ...extra: string[]): Promise<{ status: number | null; report: Json; stderr: string }> {
  const r = await runCliAsync(['audit', path.join(FIXTURES, fixture), '--json', '--sandbox', 'host', ...extra]);
  let report: Json = {};
  try {
    report = JSON.parse(r.stdout);
  } catch {
    assert.fail(`audit ${fixture} printed no JSON (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return { status: r.status, report, stderr: r.stderr };
}

/** Pids of live processes with this command-line argument (a killed process lingering as a zombie is not live). */
function runningWithArgument(arg: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(arg) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, 'utf8'))) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

const names = (layer: { name: string }[]) => layer.map((d) => d.name).sort();

// The audits run at once: each has its own work directory, and each waits mostly on pip.
describe('python audit (real pip, real strace)', { concurrency: true }, () => {
  test('import name differs from distribution; unused and lazily imported packages are phantom', async () => {
    const { status, report } = await audit('py-yaml-lazy');
    assert.equal(report.schemaVersion, 1);
    assert.equal(report.ecosystem, 'python');
    // PyYAML is imported as "yaml"; tabulate is never imported; colorama only on the --colour path.
    assert.deepEqual(names(report.layers.declared), ['colorama', 'pyyaml', 'tabulate']);
    // None of the three has dependencies of its own.
    assert.deepEqual(names(report.layers.installed), ['colorama', 'pyyaml', 'tabulate']);
    assert.deepEqual(names(report.layers.traced), ['pyyaml']);
    assert.deepEqual(report.layers.traced[0].version, '6.0.2');
    assert.deepEqual(report.gaps.phantom, ['colorama', 'tabulate']);
    assert.deepEqual(report.gaps.hidden, []);
    assert.deepEqual(report.gaps.bloat, ['colorama', 'tabulate']);
    assert.equal(report.metrics.precision, 1 / 3);
    assert.equal(report.metrics.recall, 1);
    assert.equal(report.run.success, true);
    assert.match(report.run.reason, /main\.py/);
    assert.equal(status, 1, 'phantom dependencies are findings');
  });

  test('the lazy import is traced when the run takes its path', async () => {
    const { report } = await audit('py-yaml-lazy', '--run', 'python main.py --colour');
    assert.deepEqual(names(report.layers.traced), ['colorama', 'pyyaml']);
    assert.equal(report.run.reason, '--run');
    assert.deepEqual(report.gaps.phantom, ['tabulate']);
  });

  test('the paper worked example: pandas alone installs six packages (inflation 6.0)', async () => {
    const { report } = await audit('py-pandas', '--keep');
    try {
      assert.deepEqual(names(report.layers.declared), ['pandas']);
      assert.deepEqual(report.otherDeclared.constraints?.length, 6, 'constraints are reported, not declared');
      assert.deepEqual(names(report.layers.installed), ['numpy', 'pandas', 'python-dateutil', 'pytz', 'six', 'tzdata']);
      assert.equal(report.metrics.inflation, 6);
      // pandas imports its hard dependencies numpy, pytz and dateutil at import time; dateutil.tz imports six.
      // tzdata is only a fallback for zoneinfo and is not imported here.
      const expectedTraced = ['numpy', 'pandas', 'python-dateutil', 'pytz', 'six'];
      assert.deepEqual(names(report.layers.traced), expectedTraced);
      assert.deepEqual(report.gaps.hidden, ['numpy', 'python-dateutil', 'pytz', 'six']);
      assert.deepEqual(report.gaps.bloat, ['tzdata']);

      // Second route to D3: the distributions of the modules the interpreter has loaded (sys.modules), less those
      // a bare start loads (setuptools' _distutils_hack, from the stock venv's .pth), as D3 leaves them out too.
      const python = path.join(report.workDir, 'env', 'venv', 'bin', 'python');
      const probe = [
        'import sys',
        'at_start = set(sys.modules)',
        'import runpy, importlib.metadata as md',
        'runpy.run_path("main.py", run_name="__main__")',
        'owners = md.packages_distributions()',
        'dists = {d for m in set(sys.modules) - at_start for d in owners.get(m.split(".")[0], [])}',
        'print(",".join(sorted(d.lower().replace("_", "-") for d in dists)))',
      ].join('\n');
      const r = spawnSync(python, ['-c', probe], { cwd: path.join(report.workDir, 'project'), encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.stdout.trim().split('\n').at(-1)!.split(','), expectedTraced);
    } finally {
      if (report.workDir) rmSync(report.workDir, { recursive: true, force: true });
    }
  });

  test('a crashing program: layers are still reported and run.success is false', async () => {
    const { status, report } = await audit('py-crash');
    assert.equal(report.run.success, false);
    assert.equal(report.run.exitCode, 1);
    assert.match(report.run.outputTail, /crashes on purpose/);
    assert.deepEqual(names(report.layers.traced), ['pyyaml']);
    assert.equal(status, 1);
  });

  test('a hanging program is killed at the timeout, with its whole process tree', async () => {
    // A unique sleep duration marks the detached child, so it can be found among the host's processes.
    const marker = `1000.${process.pid}${Date.now() % 100000}`;
    const { report } = await audit('py-hang', '--timeout', '3', '--run', `python main.py ${marker}`);
    assert.equal(report.run.timedOut, true);
    assert.equal(report.run.success, false);
    assert.match(report.run.outputTail, /child started/);
    assert.deepEqual(runningWithArgument(marker), [], 'the child in its own session is gone too');
  });
});

describe('python audit: the venv is the one python3 -m venv makes', () => {
  for (const sandbox of ['host', 'bwrap']) {
    test(`pip and setuptools are in it (${sandbox}), pkg_resources imports, and they are not counted as installed by the project`, () => {
      const r = runCli(['audit', path.join(FIXTURES, 'py-pkg-resources'), '--json', '--sandbox', sandbox, '--keep']);
      const report = JSON.parse(r.stdout) as Json;
      try {
        assert.equal(report.run.success, true, report.run.outputTail);
        assert.match(report.run.outputTail, /^pkg_resources 1\.16\.0 True$/m);
        assert.deepEqual(report.layers.installed.map((d: Json) => `${d.name}@${d.version}`), ['six@1.16.0']);
        const venv = path.join(report.workDir, 'env', 'venv');
        const site = readdirSync(path.join(venv, 'lib')).map((py) => path.join(venv, 'lib', py, 'site-packages'))[0]!;
        const infos = readdirSync(site).filter((f) => f.endsWith('.dist-info')).map((f) => f.split('-')[0]).sort();
        assert.deepEqual(infos, ['pip', 'setuptools', 'six']);
        assert.ok(readdirSync(path.join(venv, 'bin')).includes('pip'), 'the venv has its pip command');
      } finally {
        if (report.workDir) rmSync(report.workDir, { recursive: true, force: true });
      }
    });
  }
});

describe('python audit: environment markers', () => {
  test('markers are evaluated for the interpreter of the audit environment', () => {
    // The exact version of the interpreter the host sandbox uses, asked independently of envproof.
    const full = spawnSync('python3', ['-c', 'import platform; print(platform.python_version())'], { encoding: 'utf8' }).stdout.trim();
    const dir = mkdtempSync(path.join(tmpdir(), 'envproof-markers-'));
    try {
      writeFileSync(
        path.join(dir, 'requirements.txt'),
        `six==1.16.0; python_full_version == "${full}"\ntabulate==0.9.0; python_full_version != "${full}"\n`,
      );
      writeFileSync(path.join(dir, 'main.py'), 'import six\n');
      const r = runCli(['audit', dir, '--json', '--sandbox', 'host']);
      const report = JSON.parse(r.stdout);
      assert.deepEqual(names(report.layers.declared), ['six'], r.stderr);
      assert.deepEqual(report.skipped.map((e: { reason: string }) => e.reason), ['marker-excluded']);
      assert.deepEqual(names(report.layers.installed), ['six']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('python audit: bad input', () => {
  test('no manifest', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'py-no-manifest'), '--sandbox', 'host']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no manifest found/);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  });

  test('a binary requirements file', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'py-binary-manifest'), '--sandbox', 'host']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /requirements\.txt/);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  });

  test('a package that does not exist in the registry', async () => {
    const { status, report } = await audit('py-missing-package');
    assert.equal(status, 2);
    assert.equal(report.error.step, 'install');
    assert.equal(report.error.class, 'no-such-package');
    assert.match(report.error.message, /envproof-this-package-does-not-exist-7f3a/);
  });

  test('requirements files that include each other in a cycle', async () => {
    const { status, report } = await audit('py-include-cycle');
    assert.equal(status, 2);
    assert.match(report.error.message, /cycle \(requirements\.txt -> more\.txt -> requirements\.txt\)/);
    assert.match(report.error.hint, /remove one of the -r lines/);
  });

  test('a path that does not exist', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'does-not-exist'), '--sandbox', 'host']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /no such directory/);
  });
});
