// tier: quick
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';

describe('envproof env', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-envcli-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('rejects an unknown language with the list of known ones', () => {
    const r = runCli(['env', 'build', 'ruby']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown language "ruby"/);
    assert.match(r.stderr, /python, java, javascript, cpp, go, all/);
  });

  it('doctor names each missing tool with the command that installs it, and exits 1', () => {
    // A PATH without bubblewrap and strace, as on a fresh machine.
    const emptyBin = path.join(scratch, 'bin');
    mkdirSync(emptyBin);
    const r = runCli(['env', 'doctor'], { env: { PATH: emptyBin } });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^MISSING\s+bubblewrap .*\n\s+fix: apt-get install -y bubblewrap$/m);
    assert.match(r.stdout, /^MISSING\s+strace .*\n\s+fix: apt-get install -y strace$/m);
    assert.match(r.stdout, /^MISSING\s+namespaces /m);
  });

  it('lists every language, with the status of an empty cache', () => {
    const r = runCli(['env', 'list', '--json'], { env: { ENVPROOF_CACHE_DIR: path.join(scratch, 'cache') } });
    assert.equal(r.status, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as { language: string; status: string; sizeBytes: number }[];
    assert.deepEqual(rows.map((x) => [x.language, x.status, x.sizeBytes]), [
      ['python', 'missing', 0],
      ['java', 'missing', 0],
      ['javascript', 'missing', 0],
      ['cpp', 'missing', 0],
      ['go', 'missing', 0],
    ]);
  });
});
