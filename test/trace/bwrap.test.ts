import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createSandbox } from '../../src/sandbox/index.js';
import { bwrapWorks } from '../../src/sandbox/probe.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { traceRun } from '../../src/trace/index.js';
import { requires } from '../helpers/requires.js';
import { buildEnvironment } from '../sandbox/helpers.js';
import { assertOpensScenario, request, scratchDir } from './scenario.js';

/** The tracer runs the root filesystem's own strace inside bubblewrap; paths are the inside view. */
describe('tracing inside the bwrap sandbox (python environment)', requires('a working bubblewrap', bwrapWorks().ok, bwrapWorks().detail), () => {
  const sandbox = (): Promise<Sandbox> =>
    createSandbox({ backend: 'bwrap', language: 'python', hostWorkDir: scratchDir() });

  before(() => buildEnvironment('python'));

  it('sees the same opens, symlinks resolved in the root filesystem', { timeout: 300_000 }, async () => {
    const sb = await sandbox();
    await assertOpensScenario(sb, ['python3']);
    const r = await traceRun(sb, request(sb, ['python3', '-c', 'pass']));
    // /usr/bin/python3 is a symlink to python3.11 in the root filesystem (Debian 12).
    assert.deepEqual(r.execs, ['/usr/bin/python3']);
    assert.ok(r.files.has('/usr/bin/python3.11'), 'the interpreter behind the symlink');
  });

  it('passes exit codes and fatal signals through', { timeout: 120_000 }, async () => {
    const sb = await sandbox();
    const exit3 = await traceRun(sb, request(sb, ['sh', '-c', 'exit 3']));
    assert.equal(exit3.run.exitCode, 3);
    const crash = await traceRun(sb, request(sb, ['sh', '-c', 'kill -SEGV $$']));
    assert.equal(crash.run.signal, 'SIGSEGV');
    assert.equal(crash.run.exitCode, null);
  });
});
