import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { HostSandbox, processTreePrefix } from '../../src/sandbox/host.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { skipMissing } from '../helpers/requires.js';
import { survivorsAfter } from './helpers.js';

describe('host sandbox', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'envproof-host-'));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('says that it does not isolate', async () => {
    const sb = await createSandbox({ backend: 'host', language: 'python', hostWorkDir: work });
    assert.ok(sb instanceof HostSandbox);
    assert.match(sb.isolationWarning ?? '', /not isolated/);
  });

  it("does not pass the caller's variables", async () => {
    process.env.SECRET_TOKEN = 'host-secret-value';
    try {
      const sb = new HostSandbox('python', work);
      const r = await sb.exec({ argv: ['env'], cwd: work, network: false, timeoutMs: 10_000 });
      assert.equal(r.exitCode, 0);
      assert.ok(!r.stdout.includes('host-secret-value'));
      assert.match(r.stdout, new RegExp(`^HOME=${path.join(work, 'home')}$`, 'm'));
    } finally {
      delete process.env.SECRET_TOKEN;
    }
  });

  it('leaves no process behind, even one that left the process group, after a normal exit and after a timeout', async (t) => {
    if (processTreePrefix().length === 0) return skipMissing(t, 'permission to create pid namespaces (unshare --pid --fork)');
    const sb = new HostSandbox('python', work);
    const token = `86400.${Math.floor(Math.random() * 1e6)}`;
    const quick = await sb.exec({ argv: ['sh', '-c', `setsid sleep ${token} & echo started`], cwd: work, network: false, timeoutMs: 10_000 });
    assert.equal(quick.exitCode, 0);
    assert.equal(quick.stdout.trim(), 'started');
    assert.deepEqual(await survivorsAfter(token, 5000), []);

    const slow = await sb.exec({ argv: ['sh', '-c', `setsid sleep ${token} & sleep ${token}`], cwd: work, network: false, timeoutMs: 1500 });
    assert.equal(slow.timedOut, true);
    assert.deepEqual(await survivorsAfter(token, 5000), []);
  });

  it('keeps the exit status of the program', async () => {
    const sb = new HostSandbox('python', work);
    const r = await sb.exec({ argv: ['sh', '-c', 'exit 7'], cwd: work, network: false, timeoutMs: 10_000 });
    assert.equal(r.exitCode, 7);
  });
});
