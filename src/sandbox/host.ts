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

/** The weakest backend: a temporary directory and a cleaned environment on the host. */
export class HostSandbox implements Sandbox {
  readonly backend = 'host' as const;
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
    return runProcess(req.argv, {
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
