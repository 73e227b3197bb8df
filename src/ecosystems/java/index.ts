import { mkdir, readFile } from 'node:fs/promises';
import { EnvproofError, NoEntryPointError } from '../../core/errors.js';
import type { AuditContext, EcosystemModule, InstallResult, RunChoice } from '../types.js';
import { attributeJava } from './attribute.js';
import { tracedJvmOptions } from './class-load-log.js';
import { extractJavaDeclared } from './declared.js';
import { installedLayer, parseDependencyList } from './dependency-list.js';
import { javaLayout } from './layout.js';
import { findMainClass } from './main-class.js';
import { DEPENDENCY_PLUGIN, failMaven, mavenCommandLine, runMaven, type MavenCall } from './maven.js';
import { mavenComponentFacts } from './component-facts.js';
import { mavenManifestEditor } from './manifest-edit.js';
import { javaStaticImports } from './static-imports.js';

export { JAVA_ATTRIBUTIONS, javaTracedLayer, type JavaAttribution } from './attribute.js';

function hostPath(ctx: AuditContext, inside: string): string {
  const p = ctx.sandbox.toHost(inside);
  if (p === null) throw new EnvproofError(`${inside} is not visible from the host`, 'the environment directory must be inside the sandbox work directory');
  return p;
}

async function runOrFail(ctx: AuditContext, step: 'install' | 'build', call: MavenCall, network: boolean, commands: string[]): Promise<void> {
  ctx.progress(mavenCommandLine(call));
  commands.push(mavenCommandLine(call));
  const r = await runMaven(ctx, call, network);
  if (r.exitCode !== 0 || r.timedOut) await failMaven(ctx, step, r);
}

async function readClasspath(ctx: AuditContext): Promise<string[]> {
  const text = await readFile(hostPath(ctx, javaLayout(ctx).classpathFile), 'utf8').catch(() => '');
  return text.trim().split(':').filter(Boolean);
}

export const javaEcosystem: EcosystemModule = {
  id: 'java',
  displayName: 'Java (Maven)',
  manifestFiles: ['pom.xml'],

  extractDeclared: (projectDir) => extractJavaDeclared(projectDir),

  async install(ctx): Promise<InstallResult> {
    const started = performance.now();
    const layout = javaLayout(ctx);
    await mkdir(hostPath(ctx, layout.root), { recursive: true });
    const commands: string[] = [];
    // The whole resolved graph, every scope: test scope is dropped when reading it (excludeScope=test would drop all).
    // Appended, so that every module of a reactor adds its list; the file is new in each environment.
    const list: MavenCall = { goals: [`${DEPENDENCY_PLUGIN}:list`], properties: { outputFile: layout.dependencyList, appendOutput: 'true' }, updateFailures: true };
    await runOrFail(ctx, 'install', list, true, commands);
    const artifacts = parseDependencyList(await readFile(hostPath(ctx, layout.dependencyList), 'utf8'));
    return {
      installed: installedLayer(artifacts),
      details: { resolved: artifacts },
      commands,
      durationMs: performance.now() - started,
    };
  },

  async build(ctx, install): Promise<void> {
    const layout = javaLayout(ctx);
    await runOrFail(ctx, 'build', { goals: ['package'], properties: { skipTests: 'true' } }, true, install.commands);
    // Offline: install already resolved every runtime artifact and the dependency plugin.
    const copy: MavenCall = {
      goals: [`${DEPENDENCY_PLUGIN}:copy-dependencies`, `${DEPENDENCY_PLUGIN}:build-classpath`],
      properties: {
        includeScope: 'runtime',
        outputDirectory: layout.dependencyJars,
        'mdep.outputFile': layout.classpathFile,
        'mdep.prefix': layout.dependencyJars,
      },
      offline: true,
    };
    await runOrFail(ctx, 'build', copy, false, install.commands);
    await mkdir(hostPath(ctx, layout.classLoadLogs), { recursive: true });
  },

  async defaultRun(ctx): Promise<RunChoice> {
    const layout = javaLayout(ctx);
    const main = await findMainClass(hostPath(ctx, ctx.projectDir));
    if (!main) {
      throw new NoEntryPointError(
        'no main class found: the built jar has no Main-Class and no shade, assembly, jar or exec plugin names a <mainClass>',
        'give the command to trace with --run, e.g. --run "java -cp target/classes:<deps> com.example.Main"',
      );
    }
    // target/classes first, then each dependency jar in Maven's order; never the fat JAR, which would hide them.
    const classpath = [layout.projectClasses, ...(await readClasspath(ctx))].join(':');
    return {
      argv: ['java', ...tracedJvmOptions(layout.classLoadLogs), '-cp', classpath, main.className],
      reason: `${main.reason}, run on target/classes and the copied dependency jars`,
    };
  },

  userRun(command, ctx): RunChoice {
    // Every JVM the command starts logs its class loading, so the class-level layer exists for --run too.
    return { argv: ['sh', '-c', command], reason: '--run', env: { JAVA_TOOL_OPTIONS: tracedJvmOptions(javaLayout(ctx).classLoadLogs).join(' ') } };
  },

  attribute: (files, ctx) => attributeJava(files, ctx),

  /** One version, not a range, LATEST/RELEASE or a snapshot. */
  isPinned: (dep) => dep.version !== undefined && !/[[\](),]/.test(dep.version) && !/^(LATEST|RELEASE)$|-SNAPSHOT$/.test(dep.version),
  componentFacts: mavenComponentFacts,
  staticImports: (ctx) => javaStaticImports(ctx),
  manifestEditor: mavenManifestEditor,
};
