/**
 * D2 for Go: the module build list after resolution in the audit's fresh module cache. `go mod download` fetches
 * the modules go.mod requires (it fails for a module or version the proxy does not have); `go list -m -json all`
 * then prints the build list minimal version selection chose, the main module first.
 */
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { AuditContext, InstallResult } from '../types.js';
import { goExec, goFailure } from './go-command.js';
import { seedBuildCache } from './std-cache.js';
import { isDirectoryReplaced, isModule, moduleDependency, parseJsonStream, type GoModule } from './modules.js';
import { readProjectFile } from '../../core/safe-read.js';

const DOWNLOAD = ['mod', 'download'];
const LIST = ['list', '-m', '-json', 'all'];

/** Kept in InstallResult.details; build and attribute read it back. */
export interface GoInstallDetails {
  /** go.mod as resolution left it (-mod=mod may add to it), to see whether the build changed it again. */
  goMod: string;
  /** Built executables (inside paths), and the one the default run starts. */
  binaries: string[];
  mainBinary?: string;
  /** Why `mainBinary` (or why there is none). */
  mainReason?: string;
}

export function goDetails(install: InstallResult): GoInstallDetails {
  const d = install.details as Partial<GoInstallDetails> | undefined;
  if (typeof d?.goMod !== 'string' || !Array.isArray(d.binaries)) throw new Error('Go install details missing: install() did not run');
  return d as GoInstallDetails;
}

/** The modules of the build list as `go list -m -json all` prints them, the main module first. */
export async function listModules(ctx: AuditContext): Promise<GoModule[]> {
  const r = await goExec(ctx, LIST, true);
  if (r.exitCode !== 0 || r.timedOut) throw await goFailure('install', LIST, r, ctx.installTimeoutMs);
  try {
    return parseJsonStream(r.stdout).filter(isModule);
  } catch {
    throw new StepFailedError('install', 'other', `go ${LIST.join(' ')} did not print the build list`, tail(`${r.stdout}\n${r.stderr}`));
  }
}

/** The build list: the main module and directory replacements (the project's own) apart from the rest. */
export async function buildList(ctx: AuditContext): Promise<{ installed: InstallResult['installed']; own: string[] }> {
  const modules = await listModules(ctx);
  const own = modules.filter((m) => m.Main || isDirectoryReplaced(m)).map((m) => m.Path);
  const installed = modules.filter((m) => !m.Main).map((m) => moduleDependency(m, 'go list -m all'));
  return { installed, own };
}

export async function goInstall(ctx: AuditContext): Promise<InstallResult> {
  const started = performance.now();
  await seedBuildCache(ctx);
  ctx.progress('go mod download');
  const download = await goExec(ctx, DOWNLOAD, true);
  if (download.exitCode !== 0 || download.timedOut) throw await goFailure('install', DOWNLOAD, download, ctx.installTimeoutMs);
  const { installed, own } = await buildList(ctx);
  const details: GoInstallDetails = { goMod: await readProjectFile(ctx.host.projectDir, 'go.mod', 'utf8'), binaries: [] };
  return {
    installed,
    own,
    details: details as unknown as Record<string, unknown>,
    commands: [`go ${DOWNLOAD.join(' ')}`, `go ${LIST.join(' ')}`],
    durationMs: performance.now() - started,
  };
}
