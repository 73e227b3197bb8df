/**
 * The C++ / CMake ecosystem: D1 from the CMake files (manifest.ts), D2 from the configure step
 * (configure.ts), a build whose compiler dependency output gives the build-time layer, and D3 from the
 * shared libraries the program loaded (attribute.ts).
 */
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { AuditContext, EcosystemModule, InstallResult, RunChoice } from '../types.js';
import { cmakeAttribute } from './attribute.js';
import { chooseExecutable, readCodemodel } from './codemodel.js';
import { cmakeConfigure, cmakeDetails, hostPath } from './configure.js';
import { classifyBuildFailure } from './failure.js';
import { CMAKE_MANIFEST, extractCmakeDeclared } from './manifest.js';
import { cmakeComponentFacts } from './component-facts.js';
import { cmakeManifestEditor } from './manifest-edit.js';
import { cmakeStaticImports } from './static-imports.js';

const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

async function cmakeBuild(ctx: AuditContext, install: InstallResult): Promise<void> {
  const { buildDir } = cmakeDetails(install);
  ctx.progress('cmake --build');
  // ExternalProject downloads happen while building, hence the network.
  const r = await ctx.sandbox.exec({ argv: ['cmake', '--build', buildDir, '--parallel', '2'], cwd: ctx.projectDir, timeoutMs: ctx.timeoutMs, network: true });
  if (r.timedOut) throw new StepFailedError('build', 'other', 'the CMake build timed out', tail(r.stdout + r.stderr));
  if (r.exitCode !== 0) {
    const output = `${r.stdout}\n${r.stderr}${r.spawnError ?? ''}`;
    const { failureClass } = classifyBuildFailure(output);
    const what = failureClass === 'fetch-failure' ? 'a download during the build failed' : 'the compiler or linker reported errors';
    throw new StepFailedError('build', failureClass, `CMake build failed: ${what}`, tail(output, 60));
  }
}

export const cppEcosystem: EcosystemModule = {
  id: 'cpp',
  displayName: 'C++ (CMake)',
  manifestFiles: [CMAKE_MANIFEST],

  extractDeclared: (projectDir) => extractCmakeDeclared(projectDir),

  install: (ctx) => cmakeConfigure(ctx),

  build: (ctx, install) => cmakeBuild(ctx, install),

  async defaultRun(ctx, install): Promise<RunChoice> {
    const { buildDir } = cmakeDetails(install);
    const model = await readCodemodel(hostPath(ctx, buildDir), buildDir);
    const { target, reason } = chooseExecutable(model);
    return { argv: [target.artifacts[0] ?? target.name], reason };
  },

  userRun(command, _ctx, install): RunChoice {
    // Programs built at the top of the build tree can be named bare: `--run "app --demo"`.
    return { argv: ['/bin/sh', '-c', command], reason: '--run', env: { PATH: `${cmakeDetails(install).buildDir}:${STANDARD_PATH}` } };
  },

  attribute: (files, ctx, install) => cmakeAttribute(files, ctx, install),

  /** find_package(... EXACT), a pkg-config `=` constraint, or fetched content at a tag or versioned URL. */
  isPinned: (dep) =>
    /^find_package\(/i.test(dep.id ?? '') ? /\bEXACT\b/.test(dep.id!) : /^pkg_/i.test(dep.id ?? '') ? /^=/.test(dep.version ?? '') : dep.version !== undefined,
  componentFacts: cmakeComponentFacts,
  staticImports: (ctx, _install, attribution) => cmakeStaticImports(ctx, attribution),
  manifestEditor: cmakeManifestEditor,
};
