import path from 'node:path';
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { Dependency } from '../../core/types.js';
import { configuredRegistry, downloadFailureClass, timeoutFailureClass, type Registry } from '../registry.js';
import type { AuditContext, InstallFailureClass } from '../types.js';
import { installTimeoutHint, installTimeoutText } from '../step-limit.js';


/** Where the audit's private virtual environment lives, as seen inside the sandbox. */
export function venvDir(ctx: AuditContext): string {
  return path.posix.join(ctx.envDir, 'venv');
}

export function venvPython(ctx: AuditContext): string {
  return path.posix.join(venvDir(ctx), 'bin', 'python');
}

/** Environment that makes `python`/`pip` mean the audit's venv. */
export function venvEnv(ctx: AuditContext): Record<string, string> {
  return {
    VIRTUAL_ENV: venvDir(ctx),
    PATH: `${path.posix.join(venvDir(ctx), 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  };
}

/**
 * pip run by the environment's interpreter and pointed at the venv (`--python`). The venv holds what a stock
 * `python3 -m venv` brings (pip, setuptools); those are its baseline, subtracted from what the install adds.
 */
function pipArgv(ctx: AuditContext, args: string[]): string[] {
  return ['python3', '-m', 'pip', '--python', venvPython(ctx), '--disable-pip-version-check', ...args];
}

/** Packages in `after` that are not in `before`, comparing name and version (an upgrade counts as installed). */
export function installedDiff(before: readonly Dependency[], after: readonly Dependency[]): Dependency[] {
  const had = new Set(before.map((d) => `${d.name}@${d.version}`));
  return after.filter((d) => !had.has(`${d.name}@${d.version}`)).sort((a, b) => a.name.localeCompare(b.name));
}

/** PyPI's simple index, or the index ENVPROOF_REGISTRY_PIP names (passed to pip as PIP_INDEX_URL). */
export const PIP_REGISTRY: Registry = { variable: 'ENVPROOF_REGISTRY_PIP', fallback: 'https://pypi.org/simple/' };

const CONNECTION_FAILED =
  /NewConnectionError|Temporary failure in name resolution|Name or service not known|Max retries exceeded|Network is unreachable|ConnectTimeoutError|ReadTimeoutError|connection broken by/;

/**
 * Reads pip's own words to say what kind of install failure this was. A failed connection comes first: an index
 * that cannot be reached also ends in "from versions: none".
 */
export function classifyPipFailure(output: string): InstallFailureClass {
  if (CONNECTION_FAILED.test(output)) return 'network';
  if (/\(from versions: none\)/.test(output)) return 'no-such-package';
  if (/Could not find a version that satisfies|No matching distribution found/.test(output)) return 'no-matching-version';
  if (/Failed building wheel|Failed to build|subprocess-exited-with-error|metadata-generation-failed|error: command '.*' failed/.test(output))
    return 'native-build-failure';
  return 'other';
}

/** The endpoints pip's connection errors name: `HTTPSConnectionPool(host='…', port=…)`. */
export function pipFailingEndpoints(output: string): string[] {
  return [...output.matchAll(/ConnectionPool\(host='([^']+)', port=(\d+)\)/g)].map((m) => `${m[1]}:${m[2]}`);
}

/** The line of pip's output that best says what went wrong. */
export function pipErrorLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim());
  return lines.find((l) => l.startsWith('ERROR:')) ?? lines.filter(Boolean).at(-1) ?? 'pip install failed';
}

export async function pipInstall(ctx: AuditContext, args: string[]): Promise<string> {
  const index = configuredRegistry(PIP_REGISTRY);
  const r = await ctx.sandbox.exec({
    argv: pipArgv(ctx, ['install', '--no-input', ...args]),
    cwd: ctx.projectDir,
    ...(index ? { env: { PIP_INDEX_URL: index } } : {}),
    timeoutMs: ctx.installTimeoutMs,
    network: true,
  });
  const output = `${r.stdout}\n${r.stderr}`;
  if (r.timedOut) throw new StepFailedError('install', await timeoutFailureClass(PIP_REGISTRY), `pip install ${installTimeoutText(ctx.installTimeoutMs)}`, tail(output), installTimeoutHint(ctx.installTimeoutMs));
  if (r.exitCode !== 0) {
    let failureClass = classifyPipFailure(output);
    if (failureClass === 'network') failureClass = await downloadFailureClass(PIP_REGISTRY, pipFailingEndpoints(output));
    throw new StepFailedError('install', failureClass, `pip install failed: ${pipErrorLine(output)}`, tail(output));
  }
  return output;
}
