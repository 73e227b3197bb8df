import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { buildEnvironment, isolatingBackends, survivorsAfter, treeFingerprint } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const SECRET = `envproof-secret-${process.pid}-${Date.now()}`;

for (const { backend, skip } of isolatingBackends()) describe(`${backend} sandbox (python environment)`, { skip }, () => {
  let scratch: string;
  const sandboxes: Sandbox[] = [];

  async function sandbox(name: string, limits?: { processes?: number; memoryBytes?: number }): Promise<Sandbox> {
    const dir = path.join(scratch, name);
    mkdirSync(dir);
    const sb = await createSandbox({ backend, language: 'python', hostWorkDir: dir, limits });
    sandboxes.push(sb);
    return sb;
  }

  before(() => {
    buildEnvironment('python', backend);
    scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-bwrap-'));
    process.env.SECRET_TOKEN = SECRET;
  });
  after(async () => {
    delete process.env.SECRET_TOKEN;
    for (const sb of sandboxes) await sb.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('records the Debian and pip baseline of the environment', async () => {
    const sb = await sandbox('baseline');
    assert.ok(sb.baseline, 'bwrap sandboxes carry a baseline');
    // The recipe installs these Debian packages; minbase alone has none of them.
    for (const pkg of ['python3', 'python3-pip', 'python3-venv', 'strace']) assert.ok(sb.baseline.debian.includes(pkg), pkg);
    assert.ok(!sb.baseline.debian.includes('gcc'), 'no compiler in the python environment');
    assert.ok(sb.baseline.packages.pip?.includes('pip'));
    assert.equal(sb.rootOnHost, path.join(process.env.ENVPROOF_CACHE_DIR || path.join(os.homedir(), '.cache', 'envproof'), 'rootfs', 'python'));
  });

  it('contains a hostile program: no writes outside the work dir, no secrets, no network, rootfs unchanged', async () => {
    const sb = await sandbox('hostile');
    const outsideFile = path.join(scratch, 'escaped.txt');
    const secretDir = mkdtempSync(path.join(os.tmpdir(), 'envproof-secret-'));
    const secretFile = path.join(secretDir, 'id_rsa');
    writeFileSync(secretFile, SECRET);
    const program = path.join(sb.workDir, 'hostile.py');
    writeFileSync(program, await import('node:fs/promises').then((f) => f.readFile(path.join(FIXTURES, 'hostile.py'), 'utf8')));
    const before = treeFingerprint(sb.rootOnHost);

    const r = await sb.exec({ argv: ['python3', program, outsideFile, secretFile], cwd: sb.workDir, network: false, timeoutMs: 60_000 });
    assert.equal(r.exitCode, 0, r.stderr);
    const got = JSON.parse(r.stdout) as Record<string, unknown> & { environ: Record<string, string> };

    // As nobody, permissions refuse first (EACCES); the read-only mount would refuse otherwise (EROFS).
    // (The same fixture and the same expectations for every isolating backend.)
    const denied = ['EACCES', 'EROFS'];
    for (const k of ['write_etc_new', 'write_etc_passwd', 'write_usr']) assert.ok(denied.includes(String(got[k])), `${k}: ${got[k]}`);
    assert.notEqual(got.write_root_home, 'succeeded');
    assert.notEqual(got.write_outside_workdir, 'succeeded');
    assert.equal(existsSync(outsideFile), false, 'nothing written beside the work directory on the host');
    assert.equal(existsSync('/root/.envproof-hostile'), false);
    assert.equal(got.write_own_home, 'succeeded', 'the program may write its own HOME, inside the work dir');
    assert.equal(got.read_root_ssh, 'ENOENT', "the caller's home is not mounted");
    assert.equal(got.list_root_ssh, 'ENOENT');
    assert.equal(got.read_secret_outside, 'ENOENT', 'files outside the work directory are not visible');
    assert.equal(got.connect, 'ENETUNREACH', 'no network interface but loopback');
    assert.equal(got.resolve, 'gaierror');
    assert.equal(got.environ.SECRET_TOKEN, undefined);
    assert.ok(!JSON.stringify(got.environ).includes(SECRET), "no caller's variable value leaks");
    assert.equal(got.environ.HOME, path.join(sb.workDir, 'home'));
    assert.equal(treeFingerprint(sb.rootOnHost), before, 'the root filesystem is unchanged');
    rmSync(secretDir, { recursive: true, force: true });
  });

  it('never hands a host file to the sandbox user through a symlink the program left', async () => {
    const sb = await sandbox('symlinks');
    const target = path.join(scratch, 'root-owned.txt');
    writeFileSync(target, 'root');
    const plant = await sb.exec({
      argv: ['sh', '-c', `ln -s ${target} evil; mv /envproof/cache/pip /envproof/cache/moved || exit 3; ln -s /etc /envproof/cache/pip`],
      cwd: sb.workDir,
      network: true,
      timeoutMs: 30_000,
    });
    assert.equal(plant.exitCode, 3, 'the cache directories cannot be swapped for symlinks');
    // The next run hands the work directory (with the planted symlink) to the sandbox user again.
    assert.equal((await sb.exec({ argv: ['true'], cwd: sb.workDir, network: false, timeoutMs: 30_000 })).exitCode, 0);
    assert.equal(statSync(target).uid, process.getuid?.());
    assert.equal(lstatSync(path.join(sb.workDir, 'evil')).isSymbolicLink(), true);
  });

  it('contains a fork bomb with the process limit', async () => {
    const sb = await sandbox('forkbomb', { processes: 64 });
    const bomb = [
      'import errno, json, os, time',
      'n, err = 0, None',
      'try:',
      '    while n < 100000:',
      '        if os.fork() == 0:',
      '            time.sleep(60); os._exit(0)',
      '        n += 1',
      'except OSError as e:',
      '    err = errno.errorcode[e.errno]',
      'print(json.dumps({"forked": n, "error": err}))',
    ].join('\n');
    const r = await sb.exec({ argv: ['python3', '-c', bomb], cwd: sb.workDir, network: false, timeoutMs: 60_000 });
    assert.equal(r.exitCode, 0, r.stderr);
    const got = JSON.parse(r.stdout) as { forked: number; error: string | null };
    assert.equal(got.error, 'EAGAIN');
    assert.ok(got.forked < 64, `forked ${got.forked} processes`);
  });

  it('refuses memory beyond the limit', async () => {
    const sb = await sandbox('memory', { memoryBytes: 256 * 1024 ** 2 });
    const grab = (mib: number) => `python3 -c "b = bytearray(${mib} * 1024 * 1024); print(len(b) // 1048576)"`;
    const small = await sb.exec({ argv: ['sh', '-c', grab(64)], cwd: sb.workDir, network: false, timeoutMs: 60_000 });
    assert.equal(small.stdout.trim(), '64', small.stderr);
    const big = await sb.exec({ argv: ['sh', '-c', grab(512)], cwd: sb.workDir, network: false, timeoutMs: 60_000 });
    assert.notEqual(big.exitCode, 0);
    assert.match(big.stderr, /MemoryError/);
  });

  it('kills the whole process tree at the timeout, including detached children', async () => {
    const sb = await sandbox('sleeper');
    const token = `86400.${Math.floor(Math.random() * 1e6)}`;
    const r = await sb.exec({
      argv: ['sh', '-c', `sleep ${token} & setsid sleep ${token} & nohup sleep ${token} >/dev/null 2>&1 & sleep ${token}`],
      cwd: sb.workDir,
      network: false,
      timeoutMs: 2000,
    });
    assert.equal(r.timedOut, true);
    assert.deepEqual(await survivorsAfter(token, 5000), []);
  });

  it('runs with the network only when asked, and pip installs from the registry', async () => {
    const sb = await sandbox('network');
    const venv = path.join(sb.workDir, 'venv');
    const make = await sb.exec({ argv: ['python3', '-m', 'venv', venv], cwd: sb.workDir, network: false, timeoutMs: 120_000 });
    assert.equal(make.exitCode, 0, make.stderr);
    const offline = await sb.exec({ argv: [`${venv}/bin/pip`, 'install', '--no-cache-dir', 'six==1.16.0'], cwd: sb.workDir, network: false, timeoutMs: 120_000, env: { PIP_RETRIES: '0' } });
    assert.notEqual(offline.exitCode, 0, 'no network: the install fails');
    const online = await sb.exec({ argv: [`${venv}/bin/pip`, 'install', 'six==1.16.0'], cwd: sb.workDir, network: true, timeoutMs: 300_000 });
    assert.equal(online.exitCode, 0, online.stderr);
    // The installed file is where toHost says it is.
    const site = sb.toHost(`${venv}/lib/python3.11/site-packages/six.py`);
    assert.equal(site, `${venv}/lib/python3.11/site-packages/six.py`);
    assert.ok(existsSync(site!));
    assert.equal(sb.toHost('/usr/lib/python3.11/os.py'), path.join(sb.rootOnHost, 'usr/lib/python3.11/os.py'));
    assert.ok(existsSync(sb.toHost('/usr/lib/python3.11/os.py')!));
    assert.equal(sb.toHost('/tmp/x'), null);
  });

  it("keeps a package cached by an earlier run out of a later run's installed list", async () => {
    const list = async (sb: Sandbox, venv: string) => {
      const r = await sb.exec({ argv: [`${venv}/bin/pip`, 'list', '--format=json'], cwd: sb.workDir, network: false, timeoutMs: 60_000 });
      assert.equal(r.exitCode, 0, r.stderr);
      return (JSON.parse(r.stdout) as { name: string }[]).map((p) => p.name.toLowerCase());
    };
    const runA = await sandbox('cache-a');
    const venvA = path.join(runA.workDir, 'venv');
    assert.equal((await runA.exec({ argv: ['python3', '-m', 'venv', venvA], cwd: runA.workDir, network: false, timeoutMs: 120_000 })).exitCode, 0);
    const installA = await runA.exec({ argv: [`${venvA}/bin/pip`, 'install', 'six==1.16.0'], cwd: runA.workDir, network: true, timeoutMs: 300_000 });
    assert.equal(installA.exitCode, 0, installA.stderr);
    assert.ok((await list(runA, venvA)).includes('six'), 'run A installed six');

    const runB = await sandbox('cache-b');
    const venvB = path.join(runB.workDir, 'venv');
    assert.equal((await runB.exec({ argv: ['python3', '-m', 'venv', venvB], cwd: runB.workDir, network: false, timeoutMs: 120_000 })).exitCode, 0);
    const installB = await runB.exec({ argv: [`${venvB}/bin/pip`, 'install', 'idna==3.7'], cwd: runB.workDir, network: true, timeoutMs: 300_000 });
    assert.equal(installB.exitCode, 0, installB.stderr);
    const inB = await list(runB, venvB);
    assert.ok(inB.includes('idna'));
    assert.ok(!inB.includes('six'), `six leaked into run B: ${inB.join(', ')}`);
  });
});
