import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { AuditReport } from '../../src/audit/report.js';
import { renderAuditText } from '../../src/report/audit-text.js';
import { hostNamespaces, HostSandbox, processTreePrefix } from '../../src/sandbox/host.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli.js';
import { skipMissing } from '../helpers/requires.js';
import { pathWithout, survivorsAfter } from './helpers.js';

const NETCHECK = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'py-netcheck');

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

  it('gives a run that asks for no network its own network namespace, with loopback up', async (t) => {
    if (!hostNamespaces().network && !process.env.CI) return t.skip(`no network namespace here: ${hostNamespaces().networkProblem}`);
    const sb = new HostSandbox('python', work);
    const offline = await sb.exec({ argv: ['python3', path.join(NETCHECK, 'main.py')], cwd: work, network: false, timeoutMs: 60_000 });
    assert.equal(offline.exitCode, 0, offline.stderr);
    assert.match(offline.stdout, /^network: blocked/m);
    assert.match(offline.stdout, /^loopback: ok$/m);
    assert.deepEqual(offline.isolation, { networkOff: true, filesystemConfined: false, ownProcessTree: true });
    const online = await sb.exec({ argv: ['python3', path.join(NETCHECK, 'main.py')], cwd: work, network: true, timeoutMs: 60_000 });
    assert.match(online.stdout, /^network: reached pypi.org$/m, 'installs keep the network');
    assert.equal(online.isolation?.networkOff, false);
    assert.match(sb.isolationWarning, /file system was not isolated; the traced run had its own network namespace/);
  });

  it('where it cannot cut the network, the report says the run had it, and the program indeed reached out', () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-nonet-'));
    try {
      const r = runCli(['audit', NETCHECK, '--sandbox', 'host', '--json', '-q'], { env: { PATH: pathWithout(['unshare'], scratch) } });
      assert.ok(r.status === 0 || r.status === 1, r.stderr);
      const report = JSON.parse(r.stdout) as AuditReport;
      assert.match(report.run.outputTail, /^network: reached pypi.org$/m);
      assert.equal(report.run.isolation.networkOff, false);
      assert.match(report.run.isolation.shortfall ?? '', /the network stayed on/);
      assert.match(report.sandbox.warning ?? '', /its network was not isolated either/);
      assert.ok(report.notes.some((n) => /did not get the isolation it asked for/.test(n)), report.notes.join('\n'));
      const text = renderAuditText(report);
      assert.match(text, /traced with .*, the network ON \(not isolated\)/);
      assert.doesNotMatch(text, /network off/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('keeps the exit status of the program', async () => {
    const sb = new HostSandbox('python', work);
    const r = await sb.exec({ argv: ['sh', '-c', 'exit 7'], cwd: work, network: false, timeoutMs: 10_000 });
    assert.equal(r.exitCode, 7);
  });
});
