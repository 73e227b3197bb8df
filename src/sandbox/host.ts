import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot, packageCacheEnv } from '../core/cache.js';
import { runProcess } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import type { ExecRequest, ExecResult, Sandbox } from './types.js';

export const HOST_WARNING =
  'sandbox "host": the program ran directly on this machine with a cleaned environment; its file system and network were not isolated.';

/** Only these variables reach programs; credentials and the user's settings never do. */
export function cleanEnvironment(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    TMPDIR: path.join(home, '..', 'tmp'),
    ...packageCacheEnv(cacheRoot()),
    ...extra,
  };
}

let treePrefix: string[] | undefined;

/**
 * A command prefix that runs the program in its own pid namespace, so that every process it starts, even one
 * that left its process group (setsid, daemons), dies when it ends or is killed; empty where not permitted.
 * A shell is the namespace's init and waits for the program: the program must not be init, which ignores the
 * signals it has no handler for (`abort()` would end in SIGSEGV, `kill -TERM` would do nothing).
 */
export function processTreePrefix(): string[] {
  if (treePrefix === undefined) {
    const prefix = ['unshare', '--pid', '--fork', '--kill-child', '--', 'sh', '-c', '"$@"; exit $?', 'sh'];
    const probe = spawnSync(prefix[0]!, [...prefix.slice(1), 'true'], { timeout: 10_000 });
    treePrefix = probe.status === 0 ? prefix : [];
  }
  return treePrefix;
}

/** The weakest backend: a temporary directory and a cleaned environment on the host. */
export class HostSandbox implements Sandbox {
  readonly backend = 'host' as const;
  readonly supportsHostWrapper = true;
  readonly isolationWarning = HOST_WARNING;
  readonly rootOnHost = '/';
  readonly workDir: string;

  constructor(
    readonly language: EcosystemId,
    readonly hostWorkDir: string,
  ) {
    this.workDir = hostWorkDir;
  }

  async exec(req: ExecRequest): Promise<ExecResult> {
    const home = path.join(this.hostWorkDir, 'home');
    await mkdir(home, { recursive: true });
    await mkdir(path.join(this.hostWorkDir, 'tmp'), { recursive: true });
    return runProcess([...(req.hostWrapper ?? []), ...processTreePrefix(), ...req.argv], {
      cwd: req.cwd,
      env: cleanEnvironment(home, req.env),
      timeoutMs: req.timeoutMs,
      maxOutputBytes: req.maxOutputBytes,
    });
  }

  toHost(insidePath: string): string {
    return insidePath;
  }

  async dispose(): Promise<void> {}
}
