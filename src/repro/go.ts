/**
 * Go projects, until Go is one of envproof's ecosystems: the modules go.mod requires are downloaded with the
 * network on, then the tests run offline. The environment is the C/C++ one with Debian's Go (golang-go) added.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { StepFailedError } from '../core/errors.js';
import { tail } from '../core/process.js';
import type { AuditContext, InstallResult, RunChoice } from '../ecosystems/types.js';

/** Where Go keeps its build cache and modules: the run's private environment directory, never shared. */
export function goEnv(ctx: AuditContext): Record<string, string> {
  return {
    GOCACHE: path.posix.join(ctx.envDir, 'go-build'),
    GOPATH: path.posix.join(ctx.envDir, 'go'),
    GOFLAGS: '-modcacherw',
    GOTOOLCHAIN: 'local',
  };
}

export async function goRequires(hostProject: string): Promise<boolean> {
  const mod = await readFile(path.join(hostProject, 'go.mod'), 'utf8').catch(() => '');
  return /^\s*require\b/m.test(mod);
}

export async function goInstall(ctx: AuditContext): Promise<InstallResult> {
  const started = performance.now();
  const hostProject = ctx.sandbox.toHost(ctx.projectDir) ?? ctx.projectDir;
  if (!(await goRequires(hostProject))) return { installed: [], details: undefined, commands: [], durationMs: 0 };
  const r = await ctx.sandbox.exec({ argv: ['go', 'mod', 'download'], cwd: ctx.projectDir, env: goEnv(ctx), timeoutMs: 15 * 60_000, network: true });
  if (r.exitCode !== 0) {
    throw new StepFailedError('install', 'other', `go mod download failed${r.spawnError ? `: ${r.spawnError}` : ''}`, tail(`${r.stdout}\n${r.stderr}`));
  }
  return { installed: [], details: undefined, commands: ['go mod download'], durationMs: performance.now() - started };
}

export function goRun(command: string, ctx: AuditContext): RunChoice {
  return { argv: ['/bin/sh', '-c', command], display: command, reason: '--cmd', env: goEnv(ctx) };
}
