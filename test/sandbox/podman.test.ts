import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PTRACE_SYSCALLS } from '../../src/sandbox/engine.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli.js';
import { buildEnvironment, isolatingBackends } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const podman = isolatingBackends().find((b) => b.backend === 'podman')!;

/** add_key(2) with a NULL type: EFAULT where the call is allowed, the profile's default errno where it is refused. */
const ADD_KEY = 'import ctypes, errno; libc = ctypes.CDLL(None, use_errno=True); libc.syscall(248, None, None, None, 0, 0); print(errno.errorcode[ctypes.get_errno()])';

describe('podman on this host', { skip: podman.skip }, () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-podman-'));
  before(() => buildEnvironment('python', 'podman'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('env doctor names the options containers need here, and they are what makes a container start', () => {
    const r = runCli(['env', 'doctor', '--json']);
    const checks = JSON.parse(r.stdout) as { name: string; ok: boolean; detail: string }[];
    const containers = checks.find((c) => c.name === 'podman containers');
    assert.equal(containers?.ok, true, containers?.detail);
    const chosen = /start with `podman ((?:--\S+ \S+ )*)run --ulimit nofile=(\d+):\d+/.exec(containers!.detail);
    assert.ok(chosen, containers!.detail);
    const image = spawnSync('podman', ['images', '--format', '{{.Repository}}:{{.Tag}}'], { encoding: 'utf8' }).stdout.split('\n').find((l) => /envproof-python-debian:/.test(l))!;
    const start = (options: string[]) =>
      spawnSync('podman', [...options, 'run', '--rm', '--network', 'none', '--ulimit', `nofile=${chosen[2]}:${chosen[2]}`, '--ulimit', 'nproc=64:64', image, 'true'], { encoding: 'utf8' });
    const options = chosen[1]!.trim().split(' ').filter(Boolean);
    assert.equal(start(options).status, 0, start(options).stderr);
    // Each candidate the doctor says failed does fail when tried by hand.
    for (const m of containers!.detail.matchAll(/`podman((?: --\S+ \S+)*)` failed: /g)) {
      const tried = m[1]!.trim().split(' ').filter(Boolean);
      assert.notEqual(start(tried).status, 0, `podman ${tried.join(' ')} starts after all`);
    }
    const seccomp = checks.find((c) => c.name === 'podman seccomp')!;
    const profile = /: (\/\S+\.json)$/.exec(seccomp.detail)?.[1];
    assert.ok(profile, seccomp.detail);
    const rules = JSON.parse(readFileSync(profile, 'utf8')) as { defaultAction: string; syscalls: { names: string[] }[] };
    assert.ok(!rules.syscalls.some((r) => r.names.includes('add_key')), 'add_key is not allowed by the profile');
    assert.equal(rules.defaultAction, 'SCMP_ACT_ERRNO', 'the engine default denies what it does not list');
    assert.deepEqual(rules.syscalls[0]?.names, PTRACE_SYSCALLS);
  });

  it('runs programs under the default seccomp profile plus ptrace: strace works, calls the default refuses stay refused', async () => {
    const dir = path.join(scratch, 'seccomp');
    mkdirSync(dir);
    const sb = await createSandbox({ backend: 'podman', language: 'python', hostWorkDir: dir });
    try {
      const traced = await sb.exec({ argv: ['strace', '-f', '-o', '/dev/null', 'python3', '-c', 'print("traced")'], cwd: sb.workDir, network: false, timeoutMs: 60_000 });
      assert.equal(traced.exitCode, 0, traced.stderr);
      assert.equal(traced.stdout.trim(), 'traced');
      const refused = await sb.exec({ argv: ['python3', '-c', ADD_KEY], cwd: sb.workDir, network: false, timeoutMs: 60_000 });
      // podman's default profile answers what it does not list with ENOSYS (its defaultErrno), docker's with EPERM.
      assert.match(refused.stdout.trim(), /^(ENOSYS|EPERM)$/, refused.stderr);
    } finally {
      await sb.dispose();
    }
    // The same call where seccomp allows it (no profile: envproof's own process on the host).
    assert.equal(spawnSync('python3', ['-c', ADD_KEY], { encoding: 'utf8' }).stdout.trim(), 'EFAULT');
  });
});

describe('docker', () => {
  it('audits like podman where a daemon runs; otherwise says clearly that none answers', () => {
    const daemon = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8' });
    const r = runCli(['audit', path.join(FIXTURES, 'py-app'), '--sandbox', 'docker', '--json'], { timeoutMs: 20 * 60_000 });
    if (daemon.status === 0) {
      const report = JSON.parse(r.stdout) as { sandbox: { backend: string }; layers: { installed: { name: string }[] } };
      assert.equal(report.sandbox.backend, 'docker');
      assert.deepEqual(report.layers.installed.map((d) => d.name).sort(), ['pyyaml', 'tabulate']);
    } else {
      assert.equal(r.status, 2);
      assert.match(r.stderr, /sandbox "docker": no container engine answers \(`docker version` failed: /);
      assert.match(r.stderr, /hint: .*--sandbox bwrap/);
    }
  });
});
