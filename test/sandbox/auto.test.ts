import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { AuditReport } from '../../src/audit/report.js';
import { renderAuditText } from '../../src/report/audit-text.js';
import { runCli } from '../helpers/cli.js';
import { pathWithout } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const SCRIPT = path.join(FIXTURES, '..', '..', 'protocol', 'fixtures', 'never-converges.yaml');

/** `--sandbox auto` (the default) on a machine where bubblewrap is missing: never a silent host run. */
describe('--sandbox auto without bubblewrap', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-auto-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const env = { PATH: pathWithout(['bwrap'], scratch) };

  it('run refuses with exit 2, naming the cause and --sandbox host as the explicit choice', () => {
    const store = path.join(scratch, 'runs.db');
    const r = runCli(['run', '--agent', `scripted:${SCRIPT}`, '--tasks', 'p_01', '--languages', 'python', '--store', store, '--quiet'], { env });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--sandbox auto found no isolating sandbox: bubblewrap cannot run here: bwrap is not installed/);
    assert.match(r.stderr, /hint: .*--sandbox host/);
    assert.equal(existsSync(store), false, 'no run was started');
  });

  it('audit falls back to host, with a warning on stderr and in the report', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'py-app'), '--json', '--quiet'], { env, timeoutMs: 10 * 60_000 });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    assert.match(r.stderr, /warning: --sandbox auto fell back to host because bubblewrap cannot run here: bwrap is not installed/, 'even with --quiet');
    const report = JSON.parse(r.stdout) as AuditReport;
    assert.equal(report.sandbox.backend, 'host');
    assert.equal(report.sandbox.requested, 'auto');
    assert.match(report.sandbox.warning ?? '', /fell back to host because bubblewrap cannot run here/);
    const text = renderAuditText(report);
    assert.match(text, /sandbox host \(--sandbox auto\)\nwarning: --sandbox auto fell back to host/);
  });
});
