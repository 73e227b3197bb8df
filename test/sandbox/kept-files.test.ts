import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { sandboxPathsIn } from '../../src/audit/kept-files.js';
import { runCli } from '../helpers/cli.js';
import { buildEnvironment } from './helpers.js';
import { TMP } from '../helpers/regexp.js';

const INSTALL_FAILS = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'ecosystems', 'javascript', 'fixtures', 'fail-install-script');

describe('paths in messages the user can open', () => {
  before(() => buildEnvironment('javascript'));

  it('finds the paths that lie in the sandbox, once each, without trailing punctuation', () => {
    const text = 'see /work/w1/env/build/CMakeFiles/CMakeError.log.\nA log: /envproof/cache/npm/_logs/x-debug-0.log\nalso /usr/lib/x.so and /work/w1/env/build/CMakeFiles/CMakeError.log';
    assert.deepEqual(sandboxPathsIn(text, { workDir: '/work/w1' }), ['/work/w1/env/build/CMakeFiles/CMakeError.log', '/envproof/cache/npm/_logs/x-debug-0.log']);
  });

  it("copies npm's log, which lives in the sandbox's cache layer, and points the removed work directory to --keep", () => {
    const r = runCli(['audit', INSTALL_FAILS, '--sandbox', 'bwrap', '-q']);
    assert.equal(r.status, 2, r.stderr);
    // npm 10 (the environment's, on Node 20) writes `npm error` lines, the log's path on the same line.
    const named = /^npm error A complete log of this run can be found in: (\/envproof\/cache\/npm\/_logs\/\S+)$/m.exec(r.stderr)?.[1];
    assert.ok(named, r.stderr);
    const kept = new RegExp(`\\[envproof\\] ${named.replaceAll('.', '\\.')} is kept as (\\S+)`).exec(r.stderr)?.[1];
    assert.ok(kept && existsSync(kept), r.stderr);
    const log = readFileSync(kept, 'utf8');
    assert.match(log, /^0 verbose cli /, "it is npm's debug log");
    assert.match(log, /simulated native build failure|command failed/);
    assert.match(r.stderr, new RegExp(`\\[envproof\\] ${TMP}/envproof-\\w+/project is in the work directory, which is removed when the audit ends: run again with --keep`));

    const keep = runCli(['audit', INSTALL_FAILS, '--sandbox', 'bwrap', '-q', '--keep']);
    assert.equal(keep.status, 2);
    assert.doesNotMatch(keep.stderr, /run again with --keep/, 'with --keep the work directory stays where the message says');
    assert.match(keep.stderr, /_logs\/\S+ is kept as /);
    const workDir = new RegExp(`^npm error path (${TMP}/envproof-\\w+)/project$`, 'm').exec(keep.stderr)?.[1];
    assert.ok(workDir && existsSync(workDir), 'the kept work directory is the one npm named');
    rmSync(workDir, { recursive: true, force: true });
  });
});
