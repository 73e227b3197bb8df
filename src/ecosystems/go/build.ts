/**
 * The build: `go build` of the module's main package (the module root, else each command under cmd/) into the
 * audit's bin directory, and the entry point it gives. With -mod=mod the build may still add a requirement (an
 * import no required module provides): D2 is listed again then, so it holds what the build used.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { NoEntryPointError } from '../../core/errors.js';
import type { AuditContext, InstallResult, RunChoice } from '../types.js';
import { goDirs, goEnv } from './go-env.js';
import { goExec, goFailure } from './go-command.js';
import { buildList, goDetails } from './install.js';
import { readGoMod } from './declared.js';
import { readProjectFile } from '../../core/safe-read.js';

const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The package clause of Go source, after comments; undefined when a build constraint excludes the file from every build. */
export function packageName(source: string): string | undefined {
  if (/^\/\/go:build\s+ignore\b/m.test(source)) return undefined;
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  return /^\s*package\s+([A-Za-z_]\w*)/m.exec(code)?.[1];
}

/** Whether a directory (on the host) holds a main package. */
async function isMainPackage(dir: string): Promise<boolean> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));
  for (const f of files) if (packageName(await readProjectFile(dir, f, 'utf8').catch(() => '')) === 'main') return true;
  return false;
}

/** The main packages envproof builds: `.` when the module root is one, else every `cmd/<name>` that is one. */
export async function mainPackages(hostDir: string): Promise<string[]> {
  if (await isMainPackage(hostDir)) return ['.'];
  const cmd = path.join(hostDir, 'cmd');
  const names = (await readdir(cmd, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const mains: string[] = [];
  for (const name of names) if (await isMainPackage(path.join(cmd, name))) mains.push(`./cmd/${name}`);
  return mains;
}

/** The executable name `go build` gives the module root's package: the module path's last element (not a /vN suffix). */
export function commandName(modulePath: string): string {
  const parts = modulePath.split('/');
  const last = parts.at(-1)!;
  return /^v\d+$/.test(last) && parts.length > 1 ? parts.at(-2)! : last;
}

export async function goBuild(ctx: AuditContext, install: InstallResult): Promise<void> {
  const details = goDetails(install);
  const hostDir = ctx.host.projectDir;
  const mains = await mainPackages(hostDir);
  const { bin } = goDirs(ctx.envDir);
  await ctx.sandbox.exec({ argv: ['mkdir', '-p', bin], cwd: ctx.projectDir, timeoutMs: 30_000, network: false });
  let args: string[];
  if (mains.length === 0) {
    args = ['build', './...'];
    details.mainReason = 'the module root is no main package and cmd/ holds none';
  } else if (mains[0] === '.') {
    const name = commandName((await readGoMod(hostDir)).module);
    args = ['build', '-o', path.posix.join(bin, name), '.'];
    details.binaries = [path.posix.join(bin, name)];
    details.mainBinary = details.binaries[0];
    details.mainReason = 'the main package at the module root';
  } else {
    args = ['build', '-o', `${bin}/`, ...mains];
    details.binaries = mains.map((m) => path.posix.join(bin, path.posix.basename(m)));
    if (mains.length === 1) details.mainBinary = details.binaries[0];
    details.mainReason = mains.length === 1 ? `${mains[0]!.slice(2)}, the only command` : `several commands: ${mains.map((m) => m.slice(2)).join(', ')}`;
  }
  ctx.progress(`go ${args.join(' ')}`);
  // The build downloads the modules its packages need (and, with -mod=mod, any it has to add).
  const r = await goExec(ctx, args, true);
  if (r.exitCode !== 0 || r.timedOut) throw await goFailure('build', args, r, ctx.installTimeoutMs);
  const goMod = await readProjectFile(hostDir, 'go.mod', 'utf8');
  if (goMod !== details.goMod) {
    const listed = await buildList(ctx);
    install.installed = listed.installed;
    install.own = [...new Set([...(install.own ?? []), ...listed.own])];
    details.goMod = goMod;
  }
  install.commands.push(`go ${args.join(' ')}`);
}

/**
 * Built commands are on the PATH, so `--run "<name> args"` finds each by its name; a go command the user runs
 * (`go run .`, `go test ./...`) gets the install's environment: its module cache, GOFLAGS, GOTOOLCHAIN=local and its
 * build cache, writable in the environment directory (the package caches are read-only to runs without the network).
 */
function runEnv(ctx: AuditContext): Record<string, string> {
  // GOPROXY=off: the install downloaded every module a run may need, and this machine's proxy URL, which may
  // carry credentials, is not the untrusted program's to see.
  return { ...goEnv(ctx.envDir), GOPROXY: 'off', PATH: `${goDirs(ctx.envDir).bin}:${STANDARD_PATH}` };
}

export function goDefaultRun(ctx: AuditContext, install: InstallResult): RunChoice {
  const { mainBinary, mainReason } = goDetails(install);
  if (!mainBinary) {
    throw new NoEntryPointError(`no main package to run: ${mainReason ?? 'nothing was built'}`, 'pass the command with --run, e.g. --run "<command> --help" (built commands are on the PATH)');
  }
  return { argv: [mainBinary], display: path.posix.basename(mainBinary), reason: mainReason ?? 'the main package', env: runEnv(ctx) };
}

export function goUserRun(command: string, ctx: AuditContext): RunChoice {
  return { argv: ['/bin/sh', '-c', command], display: command, reason: '--run', env: runEnv(ctx) };
}
