/**
 * `envproof run --languages go` on the bundled suite with a scripted agent (real go builds, host sandbox), and
 * `report` on the store it wrote: the protocol, the store (schema v5 takes the language) and the report tables
 * know Go with no Go-specific code of their own.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderPrompt } from '../../../src/tasks/prompt.js';
import { resolveSuite } from '../../../src/tasks/resolve.js';
import { runCli } from '../../helpers/cli.js';
import { requires } from '../../helpers/requires.js';
import { readStore, tempStore } from '../../protocol/helpers.js';
import { FIXTURES, hostGoVersion } from './helpers.js';

describe('the bundled suite in Go', () => {
  it('prompts name go.mod and the environment\'s Go', () => {
    const task = resolveSuite('bundled').tasks[0]!;
    const explicit = renderPrompt(task, 'go', 'explicit');
    assert.match(explicit, /Deliver a complete Go project .* where only Go 1\.\d+ \(modules; no newer toolchain is downloaded\) is installed/);
    assert.match(explicit, /- go\.mod, listing every dependency/);
    assert.match(renderPrompt(task, 'go', 'implicit'), /Write it in Go\.\n$/);
  });
});

describe('envproof run --languages go, then report', requires('the go command', hostGoVersion() !== undefined), () => {
  it('a syntax error is repaired in round 1; the report has a Go row', async () => {
    const store = tempStore();
    const r = runCli(['run', '--store', store, '--sandbox', 'host', '--quiet', '--agent', `scripted:${path.join(FIXTURES, 'repair-go.yaml')}`, '--tasks', 'p_01', '--languages', 'go', '--repairs', '2', '--timeout', '600']);
    assert.equal(r.status, 0, r.stderr);
    const [entry, ...others] = await readStore(store);
    assert.equal(others.length, 0);
    const { run, attempts } = entry!;
    assert.equal(run.language, 'go');
    assert.equal(run.firstSuccess, false);
    assert.equal(run.finalSuccess, true);
    assert.equal(run.repairDepth, 1);
    assert.equal(run.initialErrorType, 'CodeBug');
    assert.deepEqual(attempts.map((a) => a.errorClass ?? null), ['code-bug', null]);
    assert.match(attempts[0]!.errorTail!, /main\.go:\d+:\d+: syntax error/);
    assert.deepEqual(run.declared, ['github.com/google/uuid']);
    assert.deepEqual(run.installed, ['github.com/google/uuid']);
    assert.deepEqual(run.traced, ['github.com/google/uuid']);

    const report = runCli(['report', '--store', store]);
    assert.equal(report.status, 0, report.stderr);
    assert.match(report.stdout, /^\| scripted \| Go \| 1 \| 0\.0 \| 100\.0 \| 1 \| 100\.0 \|$/m, 'convergence: failed at first, repaired');
    assert.match(report.stdout, /^\| Go \| 1 \| 1\.0 \| 1\.0 \|$/m, 'inflation: D2 = D1');
  });
});
