/**
 * D2 for C++: run CMake's configure step with envproof's dependency provider and read back what CMake
 * found (find_package, with versions where the package reports one), fetched (FetchContent, including
 * a fetched project's own fetches), and what pkg-config resolved (from CMakeCache.txt).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError, StepFailedError } from '../../core/errors.js';
import { uniqueDependencies } from '../../core/names.js';
import { tail } from '../../core/process.js';
import type { Dependency } from '../../core/types.js';
import type { AuditContext, InstallResult } from '../types.js';
import { contentSource, findPackageComponents, type CmakeDeclaration } from './declarations.js';
import { classifyConfigureFailure } from './failure.js';
import { readCmakeProject } from './manifest.js';
import { cmakeName } from './names.js';
import { isBuildTool } from './build-tools.js';
import { debianPackageFor } from './debian-packages.js';
import { parseProviderLog, PROVIDER_SCRIPT, type FindPackageRecord, type ProviderLog, type TargetRecord } from './provider.js';
import { isDirectory } from '../../core/fs.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';
import { installTimeoutHint, installTimeoutText } from '../step-limit.js';

/** What configure learnt, for the build, the run and attribution. */
export interface CmakeInstallDetails {
  /** The build directory, as seen inside the sandbox. */
  buildDir: string;
  findPackages: FindPackageRecord[];
  /** Every target of the build with what it links (empty when CMake stopped early). */
  targets: TargetRecord[];
  /** pkg-config modules found, with the library files pkg_check_modules resolved for their prefix. */
  pkgConfig: { name: string; files: string[] }[];
  /** Fetched content: lower-cased name → source directory (inside the sandbox). */
  fetched: Record<string, string>;
  /** The project's own executables (inside paths), once built. */
  executables: string[];
}

export function buildDirOf(ctx: AuditContext): string {
  return path.posix.join(ctx.envDir, 'build');
}

/** `KEY:TYPE=value` lines of CMakeCache.txt. */
export function parseCmakeCache(text: string): Map<string, string> {
  const cache = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([^#/][^:=]*):[A-Z]+=(.*)$/.exec(line);
    if (m?.[1]) cache.set(m[1], m[2] ?? '');
  }
  return cache;
}

function valueAfter(args: readonly string[], keyword: string): string | undefined {
  const i = args.indexOf(keyword);
  return i >= 0 ? args[i + 1] : undefined;
}

/**
 * Fetched content: the provider's MakeAvailable requests; then content populated directly with the legacy
 * FetchContent_Populate, which the provider does not see: the project's own declarations whose
 * `<name>-src` directory exists (under `_deps/`, or under the declaring directory's binary directory,
 * the direct form's default), and any other `_deps/<name>-src` (a fetched project's own).
 */
async function fetchedContent(
  ctx: AuditContext,
  log: ProviderLog,
  buildDir: string,
  declarations: readonly CmakeDeclaration[],
): Promise<{ deps: Dependency[]; dirs: Record<string, string> }> {
  const deps: Dependency[] = [];
  const dirs: Record<string, string> = {};
  const add = async (rawName: string, candidates: string[], version: string | undefined, source: string) => {
    const name = rawName.toLowerCase();
    if (dirs[name]) return;
    for (const dir of candidates) {
      if (!(await isDirectory(ctx.hostPath(dir)))) continue;
      dirs[name] = dir;
      deps.push({ name: cmakeName(rawName), version, id: rawName, source });
      return;
    }
  };
  const depsDir = path.posix.join(buildDir, '_deps');
  for (const f of log.fetches) {
    const sourceDir = valueAfter(f.args, 'SOURCE_DIR') ?? path.posix.join(depsDir, `${f.name.toLowerCase()}-src`);
    await add(f.name, [sourceDir], contentSource(f.args).version, 'FetchContent');
  }
  for (const d of declarations.filter((x) => x.kind === 'fetchcontent')) {
    const lower = d.rawName.toLowerCase();
    const declaringBinaryDir = path.posix.join(buildDir, path.posix.dirname(d.file));
    const candidates = [path.posix.join(depsDir, `${lower}-src`), path.posix.join(declaringBinaryDir, `${lower}-src`)];
    await add(d.rawName, candidates, d.version, 'FetchContent (populated directly)');
  }
  for (const entry of await readdir(ctx.hostPath(depsDir)).catch(() => [] as string[])) {
    const m = /^(.+)-src$/.exec(entry);
    if (m?.[1]) await add(m[1], [path.posix.join(depsDir, entry)], undefined, 'FetchContent (populated directly)');
  }
  return { deps, dirs };
}

interface PkgConfigModule {
  dep: Dependency;
  files: string[];
}

/**
 * pkg-config modules the project's own pkg_check_modules/pkg_search_module calls found, from what
 * FindPkgConfig caches: `<PREFIX>_FOUND`, versions, and the full library paths `pkgcfg_lib_<PREFIX>_<lib>`.
 */
function pkgConfigModules(declarations: readonly CmakeDeclaration[], cache: Map<string, string>): PkgConfigModule[] {
  const out: PkgConfigModule[] = [];
  for (const d of declarations.filter((x) => x.kind === 'pkg-config')) {
    const prefix = d.prefix ?? '';
    if (cache.get(`${prefix}_FOUND`) !== '1') continue;
    const searched = cache.get(`${prefix}_MODULE_NAME`);
    if (searched && searched !== d.rawName) continue;
    const version = cache.get(`${prefix}_${d.rawName}_VERSION`) || cache.get(`${prefix}_VERSION`) || undefined;
    const files = [...cache].filter(([key, value]) => key.startsWith(`pkgcfg_lib_${prefix}_`) && value.startsWith('/')).map(([, value]) => value);
    out.push({ dep: { name: cmakeName(d.rawName), version, id: d.rawName, source: 'pkg-config' }, files });
  }
  return out;
}

/**
 * Packages find_package() found, except those CMake's own modules looked for on their own behalf
 * (FetchContent's find_package(Git), FindCURL's find_package(PkgConfig)): tools of CMake, not of the project.
 * Build tools the project (or its own find modules) looked for are returned apart.
 */
function foundPackages(log: ProviderLog, cmakeRoot: string | undefined): { libraries: Dependency[]; tools: Dependency[] } {
  const cmakeModules = cmakeRoot ? `${cmakeRoot}/Modules/` : undefined;
  const found = log.findPackages.filter((r) => r.found && !(cmakeModules && r.caller.startsWith(cmakeModules)));
  const dep = (r: FindPackageRecord): Dependency => ({ name: cmakeName(r.name), version: r.version, id: r.name, source: r.files[0] ?? 'find_package' });
  const tool = (r: FindPackageRecord) => {
    const { components, optionalComponents } = findPackageComponents(r.args);
    return isBuildTool(r.name, [...components, ...optionalComponents]);
  };
  return { libraries: found.filter((r) => !tool(r)).map(dep), tools: uniqueDependencies(found.filter(tool).map(dep)) };
}

/** Names the Debian package that provides the missing library, when the table knows it, and how to add it. */
function missingLibraryHint(subject: string | undefined, request: FindPackageRecord | undefined): string {
  const { components, optionalComponents } = findPackageComponents(request?.args ?? []);
  const pkg = subject && (debianPackageFor(subject, 'find_package', [...components, ...optionalComponents]) ?? debianPackageFor(subject, 'pkg-config'));
  if (pkg) {
    return `the Debian package ${pkg} provides ${subject}: add it to the clean environment with --system-packages ${pkg.replace(/ /g, ',')} (or fetch the library with FetchContent)`;
  }
  return "add the library's Debian development package to the clean environment with --system-packages <package>, or fetch the library with FetchContent";
}

function configureFailure(output: string, log: ProviderLog): StepFailedError {
  const classified = classifyConfigureFailure(output);
  // The provider saw the request but configure stopped before the result: that package is the missing one.
  const stuck = log.findPackages.find((r) => r.found === undefined && r.args.includes('REQUIRED'));
  const subject = classified.failureClass === 'missing-system-library' ? stuck?.name ?? classified.subject : classified.subject;
  const what = {
    'missing-system-library': `a required library is not installed${subject ? `: ${subject}` : ''}`,
    'fetch-failure': `a FetchContent download failed${subject ? `: ${subject}` : ''}`,
    'build-configuration': 'the CMake configuration has errors',
    build: 'the build failed',
  }[classified.failureClass];
  const hint = {
    'missing-system-library': missingLibraryHint(subject, stuck),
    'fetch-failure': 'check the FetchContent URL/GIT_REPOSITORY and GIT_TAG, and that the environment can reach them',
    'build-configuration': 'the CMake errors are in the output above',
    build: undefined,
  }[classified.failureClass];
  return new StepFailedError('configure', classified.failureClass, `CMake configure failed: ${what}`, tail(output, 60), hint);
}

export async function cmakeConfigure(ctx: AuditContext): Promise<InstallResult<CmakeInstallDetails>> {
  const started = performance.now();
  const buildDir = buildDirOf(ctx);
  const providerFile = path.posix.join(ctx.envDir, 'envproof-provider.cmake');
  const logFile = path.posix.join(ctx.envDir, 'envproof-provider.log');
  // The File API query makes configure write the codemodel (targets, artifacts, link lines).
  await mkdir(path.join(ctx.hostPath(buildDir), '.cmake/api/v1/query'), { recursive: true });
  await writeFile(path.join(ctx.hostPath(buildDir), '.cmake/api/v1/query/codemodel-v2'), '');
  await writeFile(ctx.hostPath(providerFile), PROVIDER_SCRIPT);
  await writeFile(ctx.hostPath(logFile), '');
  const argv = [
    'cmake', '-S', ctx.projectDir, '-B', buildDir, '-G', 'Unix Makefiles',
    `-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=${providerFile}`,
    `-DENVPROOF_PROVIDER_LOG=${logFile}`,
  ];
  ctx.progress('cmake configure');
  const r = await ctx.sandbox.exec({ argv, cwd: ctx.projectDir, timeoutMs: ctx.installTimeoutMs, network: true });
  const log = parseProviderLog((await readProjectFileIfExists(ctx.host.envDir, ctx.hostPath(logFile))) ?? '');
  if (r.spawnError) throw new EnvproofError(`could not run cmake: ${r.spawnError}`, 'install CMake (Debian package cmake)');
  if (r.timedOut) throw new StepFailedError('configure', 'other', `CMake configure ${installTimeoutText(ctx.installTimeoutMs)}`, tail(r.stdout + r.stderr), installTimeoutHint(ctx.installTimeoutMs));
  if (r.exitCode !== 0) throw configureFailure(`${r.stdout}\n${r.stderr}`, log);

  const cache = parseCmakeCache((await readProjectFileIfExists(ctx.host.envDir, path.join(ctx.hostPath(buildDir), 'CMakeCache.txt'))) ?? '');
  const { declarations } = await readCmakeProject(ctx.host.projectDir);
  const fetched = await fetchedContent(ctx, log, buildDir, declarations);
  const pkgConfig = pkgConfigModules(declarations, cache);
  const found = foundPackages(log, cache.get('CMAKE_ROOT'));
  const installed = uniqueDependencies([...found.libraries, ...fetched.deps, ...pkgConfig.map((m) => m.dep)]);
  const details: CmakeInstallDetails = {
    buildDir,
    findPackages: log.findPackages,
    targets: log.targets,
    pkgConfig: pkgConfig.map((m) => ({ name: m.dep.name, files: m.files })),
    fetched: fetched.dirs,
    executables: [],
  };
  return {
    installed,
    buildTools: found.tools,
    details,
    commands: [argv.join(' ')],
    durationMs: performance.now() - started,
  };
}
