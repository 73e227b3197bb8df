import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { rootfsRoot } from '../../src/sandbox/rootfs.js';
import { runCli } from '../helpers/cli.js';

interface ListedEnv {
  language: string;
  status: string;
  debian: Record<string, string>;
}

/**
 * An interrupted build leaves a root filesystem without its completion marker, a temporary build directory
 * and a lock of a process that is gone. The next build must notice all three and build afresh, in a private
 * cache directory (this really runs apt-get, and debootstrap too unless the main cache has a base archive).
 */
describe('a half-built environment', () => {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'envproof-cache-'));
  const env = { ENVPROOF_CACHE_DIR: cache };
  after(() => rmSync(cache, { recursive: true, force: true }));

  const rootfs = path.join(cache, 'rootfs');
  mkdirSync(path.join(rootfs, 'python', 'usr', 'bin'), { recursive: true });
  writeFileSync(path.join(rootfs, 'python', 'usr', 'bin', 'half-written'), '');
  mkdirSync(path.join(rootfs, '.python.building'), { recursive: true });
  mkdirSync(path.join(rootfs, '.python.lock'));
  const deadPid = spawnSync('true').pid;
  writeFileSync(path.join(rootfs, '.python.lock', 'pid'), String(deadPid));
  // The base system is not what this test is about: reuse the main cache's archive when there is one.
  const mainBases = existsSync(rootfsRoot()) ? readdirSync(rootfsRoot()) : [];
  for (const base of mainBases.filter((f) => /^\.base-.*\.tar$/.test(f))) {
    copyFileSync(path.join(rootfsRoot(), base), path.join(rootfs, base));
  }

  const list = (): ListedEnv[] => {
    const r = runCli(['env', 'list', '--json'], { env });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as ListedEnv[];
  };

  it('is listed as unfinished, then rebuilt by env build', () => {
    assert.equal(list().find((e) => e.language === 'python')?.status, 'unfinished');
    assert.equal(list().find((e) => e.language === 'cpp')?.status, 'missing');

    const r = runCli(['env', 'build', 'python'], { env, timeoutMs: 30 * 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /unfinished/);

    const python = list().find((e) => e.language === 'python');
    assert.equal(python?.status, 'ready');
    assert.ok('python3' in (python?.debian ?? {}));
    assert.equal(existsSync(path.join(rootfs, 'python', 'usr', 'bin', 'half-written')), false, 'nothing of the broken build is kept');
    assert.ok(existsSync(path.join(rootfs, 'python', 'usr', 'bin', 'python3')));
    assert.equal(existsSync(path.join(rootfs, '.python.building')), false);
    assert.equal(existsSync(path.join(rootfs, '.python.lock')), false);
    const marker = JSON.parse(readFileSync(path.join(rootfs, 'python', '.envproof-env.json'), 'utf8')) as { requested: string[] };
    assert.ok(marker.requested.includes('python3-venv'));
  });
});
