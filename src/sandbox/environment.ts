import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import { EnvproofError } from '../core/errors.js';
import { describeFailure, runProcess } from '../core/process.js';
import { packageCacheEnv } from '../ecosystems/index.js';
import type { ProgramRun, SandboxLimits } from './limits.js';
import { CA_BUNDLE, CACHE_INSIDE, sandboxHome } from './paths.js';
import type { ExecRequest } from './types.js';

/**
 * The complete environment of a program in an isolating sandbox: nothing of the caller's environment, only
 * locale, paths, caches and the CA settings the toolchains need to reach registries from this machine.
 */
export function isolatedEnvironment(workDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: sandboxHome(workDir),
    USER: 'nobody',
    LOGNAME: 'nobody',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    TMPDIR: '/tmp',
    SSL_CERT_FILE: CA_BUNDLE,
    REQUESTS_CA_BUNDLE: CA_BUNDLE,
    PIP_CERT: CA_BUNDLE,
    NODE_EXTRA_CA_CERTS: CA_BUNDLE,
    CURL_CA_BUNDLE: CA_BUNDLE,
    GIT_SSL_CAINFO: CA_BUNDLE,
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    ...packageCacheEnv(CACHE_INSIDE),
    ...extra,
  };
}

/** The part of a backend's command line that comes from the request: the same for every isolating backend. */
export function programRun(req: ExecRequest, workDir: string, cacheDir: string, limits: SandboxLimits): ProgramRun {
  return {
    workDir,
    cacheDir,
    cwd: req.cwd,
    network: req.network,
    env: isolatedEnvironment(workDir, req.env),
    argv: req.argv,
    limits,
    timeoutMs: req.timeoutMs,
    cores: os.availableParallelism(),
  };
}

/**
 * Makes the work directory (with whatever envproof put there since the last run) belong to the sandbox's user.
 * Symlinks a program left are never followed. A walk that fails is walked once more before giving up: the
 * handover is idempotent, and a busy host can fail one walk (a file removed under it, chown not started).
 */
export async function prepareWritableDirs(workDir: string, uid: number | undefined): Promise<void> {
  await mkdir(sandboxHome(workDir), { recursive: true });
  if (uid === undefined) return;
  const argv = ['chown', '--recursive', '-P', '--no-dereference', `${uid}:${uid}`, workDir];
  const handOver = () => runProcess(argv, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 120_000 });
  let r = await handOver();
  if (r.exitCode !== 0) r = await handOver();
  if (r.exitCode !== 0) throw new EnvproofError(`cannot hand ${workDir} to the sandbox user: ${r.stderr.trim().split('\n')[0] || describeFailure(r)}`, undefined, r.stderr);
}
