import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { EnvproofError } from '../../core/errors.js';
import type { AuditContext, RunChoice } from '../types.js';
import { MANIFEST } from './manifest.js';
import { objectField, readPackageJson, type PackageJson } from './package-json.js';
import { shellCommandLine, shellQuote } from '../../core/shell.js';

/** Files `node` is commonly pointed at when package.json names no entry point. */
const CONVENTIONAL_ENTRIES = ['index.js', 'server.js', 'app.js'] as const;

/**
 * A shell command run as `npm run` would run it — with the project's node_modules/.bin first on the
 * PATH — but without npm itself, so the trace holds the program and not the package manager.
 */
export function shellRun(command: string, projectDir: string, reason: string): RunChoice {
  const binDir = path.posix.join(projectDir, 'node_modules', '.bin');
  return { argv: ['sh', '-c', `PATH=${shellQuote(binDir)}:"$PATH"; export PATH; ${command}`], display: command, reason };
}

/** `bin` as a string, or the first entry of a `bin` object (in the order package.json lists them). */
function binEntry(pkg: PackageJson): { file: string; label: string } | undefined {
  if (typeof pkg.bin === 'string' && pkg.bin.trim()) return { file: pkg.bin, label: 'package.json bin' };
  const entries = Object.entries(objectField(pkg, 'bin') ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string');
  const first = entries[0];
  if (!first) return undefined;
  const which = entries.length === 1 ? 'its only entry' : `the first of ${entries.length} entries`;
  return { file: first[1], label: `package.json bin "${first[0]}" (${which})` };
}

function isFile(p: string): boolean {
  return existsSync(p) && statSync(p).isFile();
}

/** Whether `node <main>` finds a file the way node resolves a path: as given, with `.js`, or as a directory's index.js. */
function mainResolves(hostDir: string, main: string): boolean {
  const base = path.resolve(hostDir, main);
  return [base, `${base}.js`, path.join(base, 'index.js')].some(isFile);
}

/**
 * The program's default command: package.json `bin`, else `main` (when it names an existing file),
 * else the `start` script, else index.js / server.js / app.js at the top of the project.
 */
export async function defaultRun(ctx: AuditContext): Promise<RunChoice> {
  const hostDir = ctx.host.projectDir;
  const pkg = await readPackageJson(path.join(hostDir, MANIFEST));
  const node = (file: string, reason: string): RunChoice => ({ argv: ['node', path.posix.join(ctx.projectDir, file)], display: shellCommandLine(['node', file]), reason });

  const bin = binEntry(pkg);
  if (bin) return node(bin.file, bin.label);

  let mainNote = '';
  if (typeof pkg.main === 'string' && pkg.main.trim()) {
    if (mainResolves(hostDir, pkg.main)) return node(pkg.main, 'package.json main');
    mainNote = ` (package.json main "${pkg.main}" does not exist)`;
  }
  const start = objectField(pkg, 'scripts')?.start;
  if (typeof start === 'string' && start.trim()) return shellRun(start, ctx.projectDir, `package.json scripts.start${mainNote}`);

  const conventional = CONVENTIONAL_ENTRIES.find((f) => isFile(path.join(hostDir, f)));
  if (conventional) return node(conventional, `${conventional} at the top of the project${mainNote}`);

  throw new EnvproofError(
    `no entry point in ${MANIFEST}${mainNote}: no bin, main, or scripts.start, and no ${CONVENTIONAL_ENTRIES.join(', ')}`,
    'Pass the command to run with --run, e.g. --run "node src/cli.js".',
  );
}

/** A --run string: run by the shell, with node_modules/.bin on the PATH as npm scripts have it. */
export function userRun(command: string, ctx: AuditContext): RunChoice {
  return shellRun(command, ctx.projectDir, '--run');
}
