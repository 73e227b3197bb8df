/**
 * A program cannot rewrite its own D3: neither tracer's output is anywhere it can reach in the bwrap sandbox
 * (strace's log lies in a private host directory outside the sandbox's view, the fast tracer writes none).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { bwrapWorks } from '../../src/sandbox/probe.js';
import { runCli } from '../helpers/cli.js';
import { buildEnvironment } from '../sandbox/helpers.js';
import { TRACERS } from './scenario.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'forges-its-trace');

describe('a program that forges its trace log', { skip: !bwrapWorks().ok && 'bubblewrap cannot run here' }, () => {
  before(() => buildEnvironment('python'));

  for (const tracer of TRACERS) {
    test(`does not change D3 (${tracer})`, { timeout: 600_000 }, () => {
      const r = runCli(['audit', FIXTURE, '--sandbox', 'bwrap', '--tracer', tracer, '--json', '-q']);
      const report = JSON.parse(r.stdout);
      assert.equal(report.run?.success, true, r.stdout + r.stderr);
      assert.equal(report.run.tracer, tracer);
      // It tried: it wrote a forged log at least where the audit used to keep it, in the work directory.
      assert.match(report.run.outputTail, /planted:.*\.\.\/env\/trace\.strace/);
      assert.deepEqual(report.layers.traced, [], 'the forged open of six.py reached D3');
      assert.deepEqual(report.gaps.bloat, ['six']);
    });
  }
});
