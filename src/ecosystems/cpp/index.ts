/**
 * The C++ / CMake ecosystem: D1 from the CMake files (manifest.ts), D2 from the configure step
 * (configure.ts), a build whose compiler dependency output gives the build-time layer, and D3 from the
 * shared libraries the program loaded (attribute.ts).
 */
import path from 'node:path';
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { AuditContext, EcosystemModule, InstallResult, RunChoice } from '../types.js';
import { cmakeAttribute } from './attribute.js';
import { chooseExecutable, readCodemodel } from './codemodel.js';
import { cmakeConfigure, type CmakeInstallDetails } from './configure.js';
import { classifyBuildFailure } from './failure.js';
import { extractCmakeDeclared } from './manifest.js';
import { cppFacts } from './facts.js';
import { cmakeComponentFacts } from './component-facts.js';
import { cmakeManifestEditor } from './manifest-edit.js';
import { cmakeStaticImports } from './static-imports.js';
import { installTimeoutHint, installTimeoutText } from '../step-limit.js';
import { cppRepro } from './repro.js';

const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The project's own executables (paths as seen inside), from the codemodel; none when it cannot be read. */
async function ownExecutables(ctx: AuditContext, buildDir: string): Promise<string[]> {
  const model = await readCodemodel(ctx.hostPath(buildDir), buildDir).catch(() => undefined);
  return (model?.targets ?? []).filter((t) => t.type === 'EXECUTABLE' && !t.external).flatMap((t) => t.artifacts);
}

/**
 * What a traced command gets: ENVPROOF_BUILD_DIR, and a PATH with the directory of every executable the
 * project built (not only the build directory's top), so `--run "<program>"` finds each by its name.
 */
function runEnv(install: InstallResult<CmakeInstallDetails>): Record<string, string> {
  const { buildDir, executables } = install.details;
  const dirs = [...new Set([...executables.map((e) => path.posix.dirname(e)), buildDir])];
  return { ENVPROOF_BUILD_DIR: buildDir, PATH: [...dirs, STANDARD_PATH].join(':') };
}

/** How the user names an executable with --run: by its file name when no other built executable has the same. */
function typedName(executable: string, executables: readonly string[]): string {
  const base = path.posix.basename(executable);
  return executables.filter((e) => path.posix.basename(e) === base).length === 1 ? base : executable;
}

async function cmakeBuild(ctx: AuditContext, install: InstallResult<CmakeInstallDetails>): Promise<void> {
  const { buildDir } = install.details;
  ctx.progress('cmake --build');
  // ExternalProject downloads happen while building, hence the network.
  const r = await ctx.sandbox.exec({ argv: ['cmake', '--build', buildDir, '--parallel', '2'], cwd: ctx.projectDir, timeoutMs: ctx.installTimeoutMs, network: true });
  if (r.timedOut) throw new StepFailedError('build', 'other', `the CMake build ${installTimeoutText(ctx.installTimeoutMs)}`, tail(r.stdout + r.stderr), installTimeoutHint(ctx.installTimeoutMs));
  if (r.exitCode !== 0) {
    const output = `${r.stdout}\n${r.stderr}${r.spawnError ?? ''}`;
    const { failureClass } = classifyBuildFailure(output);
    const what = failureClass === 'fetch-failure' ? 'a download during the build failed' : 'the compiler or linker reported errors';
    throw new StepFailedError('build', failureClass, `CMake build failed: ${what}`, tail(output, 60));
  }
  install.details.executables = await ownExecutables(ctx, buildDir);
}

export const cppEcosystem: EcosystemModule<CmakeInstallDetails> = {
  ...cppFacts,
  repro: cppRepro,

  extractDeclared: (projectDir) => extractCmakeDeclared(projectDir),

  install: (ctx) => cmakeConfigure(ctx),

  build: (ctx, install) => cmakeBuild(ctx, install),

  async defaultRun(ctx, install): Promise<RunChoice> {
    const { buildDir, executables } = install.details;
    const model = await readCodemodel(ctx.hostPath(buildDir), buildDir);
    const { target, reason } = chooseExecutable(model, (e) => typedName(e, executables));
    const program = target.artifacts[0] ?? target.name;
    return { argv: [program], display: typedName(program, executables), reason, env: runEnv(install) };
  },

  userRun(command, _ctx, install): RunChoice {
    // Every built program can be named bare: `--run "app --demo"`, `--run "tool"` for one built in tools/.
    return { argv: ['/bin/sh', '-c', command], display: command, reason: '--run', env: runEnv(install) };
  },

  attribute: (files, ctx, install, byProgram) => cmakeAttribute(files, ctx, install, byProgram),

  /** find_package(... EXACT), a pkg-config `=` constraint, or fetched content at a tag or versioned URL. */
  isPinned: (dep) =>
    /^find_package\(/i.test(dep.id ?? '') ? /\bEXACT\b/.test(dep.id!) : /^pkg_/i.test(dep.id ?? '') ? /^=/.test(dep.version ?? '') : dep.version !== undefined,
  componentFacts: cmakeComponentFacts,
  staticImports: (ctx, _install, attribution) => cmakeStaticImports(ctx, attribution),
  manifestEditor: cmakeManifestEditor,
};
