import { existsSync } from 'node:fs';
import path from 'node:path';
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { ExecResult } from '../../sandbox/types.js';
import type { AuditContext, InstallResult } from '../types.js';
import { configuredRegistry, downloadFailureClass, timeoutFailureClass } from '../registry.js';
import { classifyNpmFailure, NPM_REGISTRY, npmFailingEndpoints, npmFailureSummary } from './failure.js';
import { installedFromTree, parseNpmLs, type NpmInstallDetails } from './npm-tree.js';
import { installTimeoutHint, installTimeoutText } from '../step-limit.js';
import { NODE_RUNTIME } from './node-runtime.js';

const LOCKFILES = ['npm-shrinkwrap.json', 'package-lock.json'] as const;

/**
 * The install command. `npm ci` when a lockfile exists (it installs exactly the lock), else `npm install`.
 * No script flag: lifecycle scripts follow npm's own policy, which is what a user running npm here gets
 * (npm 11 runs dependencies' install scripts unless the project's `allowScripts` denies them, warning
 * about unreviewed ones; older npm runs them all). No cache flag: every sandbox sets `npm_config_cache`
 * to the shared cache under ENVPROOF_CACHE_DIR as it sees it (core/cache.ts).
 */
export function installCommand(hostDir: string): string[] {
  const lock = LOCKFILES.find((f) => existsSync(path.join(hostDir, f)));
  return ['npm', lock ? 'ci' : 'install', '--no-audit', '--no-fund'];
}

/**
 * node-gyp downloads node's headers from nodejs.org, which the sandboxes' network does not reach; when the
 * environment has them installed, native addons are built against those instead: the provisioned Node's in
 * /usr/local first (node-runtime.ts), so that an addon is compiled for the Node that loads it, else a system
 * Node's (/usr/include/node, e.g. the host's). Native builds use every core (node-gyp's JOBS): an addon such as
 * sqlite3 compiles for minutes otherwise.
 */
const NODE_DIRS = [NODE_RUNTIME.prefix, '/usr'];

function nativeBuildEnv(ctx: AuditContext): Record<string, string> {
  const nodedir = NODE_DIRS.find((d) => existsSync(path.join(ctx.sandbox.rootOnHost, d, 'include/node/node.h')));
  return { JOBS: 'max', ...(nodedir ? { npm_config_nodedir: nodedir } : {}) };
}

/** The dependencies npm 11 warns ran install scripts that the project's `allowScripts` does not cover. */
export function unreviewedInstallScripts(output: string): string[] {
  return [...output.matchAll(/^npm warn install-scripts {2,}(\S+) \(([^:)]+):/gm)].map((m) => `${m[1]} (${m[2]})`);
}

const LS_COMMAND = ['npm', 'ls', '--all', '--json', '--long'];

function commandLine(argv: readonly string[]): string {
  return argv.join(' ');
}

async function installFailure(argv: readonly string[], res: ExecResult, timeoutMs: number): Promise<StepFailedError> {
  const output = `${res.stdout}\n${res.stderr}`;
  const outputTail = tail(output);
  if (res.spawnError) {
    return new StepFailedError('install', 'other', `npm could not be started: ${res.spawnError}`, outputTail, 'Is npm on the PATH of the sandbox?');
  }
  if (res.timedOut) {
    return new StepFailedError('install', await timeoutFailureClass(NPM_REGISTRY), `${commandLine(argv)} ${installTimeoutText(timeoutMs)}`, outputTail, installTimeoutHint(timeoutMs));
  }
  const { code, text } = npmFailureSummary(output);
  const status = code && !/^\d+$/.test(code) ? code : `exit code ${code ?? res.exitCode ?? res.signal}`;
  const what = `${commandLine(argv.slice(0, 2))} failed (${status})`;
  let failureClass = classifyNpmFailure(output);
  if (failureClass === 'network') failureClass = await downloadFailureClass(NPM_REGISTRY, npmFailingEndpoints(output));
  return new StepFailedError('install', failureClass, text ? `${what}: ${text}` : what, outputTail);
}

/**
 * D2: installs the project with npm and lists what npm installed. An npm project's baseline is empty:
 * the toolchain's own npm lives outside the project's node_modules, so nothing is subtracted.
 * npm ls exits non-zero for problems such as unmet peers; its JSON is used all the same.
 */
export async function install(ctx: AuditContext): Promise<InstallResult<NpmInstallDetails>> {
  const started = performance.now();
  const argv = installCommand(ctx.host.projectDir);
  ctx.progress(`running ${commandLine(argv.slice(0, 2))}`);
  const registry = configuredRegistry(NPM_REGISTRY);
  const env = { ...nativeBuildEnv(ctx), ...(registry ? { npm_config_registry: registry } : {}) };
  const res = await ctx.sandbox.exec({ argv, cwd: ctx.projectDir, env, timeoutMs: ctx.installTimeoutMs, network: true });
  if (res.exitCode !== 0 || res.timedOut) throw await installFailure(argv, res, ctx.installTimeoutMs);

  const ls = await ctx.sandbox.exec({ argv: LS_COMMAND, cwd: ctx.projectDir, timeoutMs: ctx.installTimeoutMs, network: false });
  let tree;
  try {
    tree = parseNpmLs(ls.stdout, ctx.projectDir);
  } catch {
    throw new StepFailedError('install', 'other', `${commandLine(LS_COMMAND)} did not print a dependency tree`, tail(`${ls.stdout}\n${ls.stderr}`));
  }
  return {
    installed: installedFromTree(tree),
    production: installedFromTree(tree, { omitDev: true }),
    details: {
      tree: tree.root,
      problems: tree.problems,
      lsExitCode: ls.exitCode,
      unreviewedInstallScripts: unreviewedInstallScripts(`${res.stdout}\n${res.stderr}`),
    },
    commands: [commandLine(argv), commandLine(LS_COMMAND)],
    durationMs: performance.now() - started,
  };
}
