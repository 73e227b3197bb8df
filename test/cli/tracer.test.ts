/** `--tracer` and `--overhead` on `audit`, and the fallback to strace where the fast tracer cannot run. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { cliCommand, REPO_ROOT, runCli } from '../helpers/cli.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'envproof-tracer-cli-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A Python project without dependencies that opens a file of its own. */
function project(): string {
  const dir = mkdtempSync(path.join(scratch, 'p-'));
  writeFileSync(path.join(dir, 'requirements.txt'), '');
  writeFileSync(path.join(dir, 'data.txt'), 'x');
  writeFileSync(path.join(dir, 'main.py'), "import json\nprint(len(open('data.txt').read()))\n");
  chmodSync(dir, 0o755);
  return dir;
}

function auditJson(args: string[]) {
  const r = runCli(['audit', project(), '--sandbox', 'host', '--json', '-q', ...args]);
  return { status: r.status, stderr: r.stderr, report: JSON.parse(r.stdout) };
}

describe('audit --tracer and --overhead', () => {
  test('--tracer fast and strace: the report names the tracer used', { timeout: 300_000 }, () => {
    for (const tracer of ['fast', 'strace']) {
      const { report } = auditJson(['--tracer', tracer]);
      assert.equal(report.run.success, true, JSON.stringify(report));
      assert.equal(report.run.tracer, tracer);
      assert.ok(!report.notes.some((n: string) => n.includes('fast tracer')), report.notes.join('\n'));
    }
    const text = runCli(['audit', project(), '--sandbox', 'host', '--tracer', 'fast', '-q']);
    assert.match(text.stdout, /traced with the fast tracer \(kernel events\)/);
  });

  test('--overhead n: n untraced and n traced runs, their medians and the median pairwise ratio', { timeout: 300_000 }, () => {
    const { report } = auditJson(['--tracer', 'fast', '--overhead', '3']);
    const o = report.run.overhead;
    assert.equal(o.tracer, 'fast');
    assert.equal(o.n, 3);
    assert.ok(o.untracedMedianMs > 0 && o.tracedMedianMs > 0, JSON.stringify(o));
    // A sanity range: tracing a short program neither halves its time nor multiplies it twentyfold.
    assert.ok(o.ratio > 0.2 && o.ratio < 20, JSON.stringify(o));
    assert.ok(report.phasesMs.overhead > 0);
    const text = runCli(['audit', project(), '--sandbox', 'host', '--overhead', '2', '-q']);
    assert.match(text.stdout, /tracing overhead \((fast|strace), 2 runs each\): untraced [\d.]+ ms, traced [\d.]+ ms \(medians\), ratio [\d.]+/);
  });

  test('bad values are usage errors (exit 2)', () => {
    for (const args of [['--overhead', '0'], ['--overhead', 'many'], ['--tracer', 'ptrace']]) {
      const r = runCli(['audit', project(), ...args]);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, args[0] === '--overhead' ? /--overhead must be a whole number/ : /--tracer.*ptrace|ptrace.*--tracer|Allowed choices/);
    }
  });
});

describe('where the fast tracer cannot run (not root)', () => {
  /** The CLI as nobody, without capabilities: the kernel refuses to load the fast tracer. */
  function asNobody(args: string[]) {
    const cache = mkdtempSync(path.join(scratch, 'cache-'));
    chmodSync(cache, 0o777);
    chmodSync(scratch, 0o755);
    const r = spawnSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--', ...cliCommand(...args)],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cache, ENVPROOF_CACHE_DIR: cache }, encoding: 'utf8', timeout: 300_000 },
    );
    return r;
  }

  test('auto falls back to strace and says why; fast is an error', { timeout: 300_000 }, () => {
    const auto = asNobody(['audit', project(), '--sandbox', 'host', '--json', '-q']);
    const report = JSON.parse(auto.stdout);
    assert.equal(report.run.success, true, auto.stdout + auto.stderr);
    assert.equal(report.run.tracer, 'strace');
    assert.ok(report.notes.some((n: string) => /fast tracer cannot run here \(.+\): traced with strace/.test(n)), report.notes.join('\n'));
    assert.ok(report.layers !== undefined);

    const fast = asNobody(['audit', project(), '--sandbox', 'host', '--tracer', 'fast']);
    assert.equal(fast.status, 2, fast.stderr);
    assert.match(fast.stderr, /the fast tracer cannot run here: .+/);
  });
});
