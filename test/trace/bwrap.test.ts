import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createSandbox } from '../../src/sandbox/index.js';
import { bwrapWorks } from '../../src/sandbox/probe.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { traceRun } from '../../src/trace/index.js';
import { requires } from '../helpers/requires.js';
import { buildEnvironment } from '../sandbox/helpers.js';
import { assertOpensScenario, request, scratchDir, TRACERS } from './scenario.js';

/** Both tracers watch the program inside bubblewrap from the host; paths are the inside view. */
describe('tracing inside the bwrap sandbox (python environment)', requires('a working bubblewrap', bwrapWorks().ok, bwrapWorks().detail), () => {
  const sandbox = (): Promise<Sandbox> =>
    createSandbox({ backend: 'bwrap', language: 'python', hostWorkDir: scratchDir() });

  before(() => buildEnvironment('python'));

  for (const tracer of TRACERS) {
    it(`${tracer}: sees the same opens, symlinks resolved in the root filesystem, nothing of bwrap's own`, { timeout: 300_000 }, async () => {
      const sb = await sandbox();
      await assertOpensScenario(sb, ['python3'], tracer);
      const r = await traceRun(sb, request(sb, ['python3', '-c', 'pass']), tracer);
      // /usr/bin/python3 is a symlink to python3.11 in the root filesystem (Debian 12).
      assert.deepEqual(r.execs, ['/usr/bin/python3']);
      assert.ok(r.files.has('/usr/bin/python3.11'), 'the interpreter behind the symlink');
      // bwrap and setpriv run before the program, with the host's paths: none of that is traced.
      assert.ok(![...r.files].some((f) => f.startsWith(sb.rootOnHost) || f.includes('setpriv') || f.includes('bwrap')), [...r.files].join('\n'));
    });

    it(`${tracer}: passes exit codes and fatal signals through`, { timeout: 120_000 }, async () => {
      const sb = await sandbox();
      const exit3 = await traceRun(sb, request(sb, ['sh', '-c', 'exit 3']), tracer);
      assert.equal(exit3.run.exitCode, 3);
      const crash = await traceRun(sb, request(sb, ['sh', '-c', 'kill -SEGV $$']), tracer);
      assert.equal(crash.run.signal, 'SIGSEGV');
      assert.equal(crash.run.exitCode, null);
    });
  }
});
