import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { sandboxHome } from '../../sandbox/paths.js';
import { NoEntryPointError } from '../../core/errors.js';
import type { AuditContext, EcosystemModule, InstallResult, RunChoice } from '../types.js';
import { attributeJava } from './attribute.js';
import { tracedJvmOptions } from './class-load-log.js';
import { extractJavaDeclared } from './declared.js';
import { installedLayer, parseDependencyList, resolvedArtifactVersion, type ListedArtifact } from './dependency-list.js';
import { javaLayout } from './layout.js';
import { element, parsePomXml } from './pom-xml.js';
import { findMainClass } from './main-class.js';
import { DEPENDENCY_PLUGIN, failMaven, fetchPom, mavenCommandLine, runMaven, type MavenCall } from './maven.js';
import { mavenComponentFacts } from './component-facts.js';
import { mavenManifestEditor } from './manifest-edit.js';
import { javaStaticImports } from './static-imports.js';
import { javaFacts } from './facts.js';
import { readProjectFile, readProjectFileIfExists } from '../../core/safe-read.js';
import { javaRepro } from './repro.js';

export { JAVA_ATTRIBUTIONS, javaTracedLayer, type JavaAttribution } from './attribute.js';

async function runOrFail(ctx: AuditContext, step: 'install' | 'build', call: MavenCall, network: boolean, commands: string[]): Promise<void> {
  ctx.progress(mavenCommandLine(call));
  commands.push(mavenCommandLine(call));
  const r = await runMaven(ctx, call, network);
  if (r.exitCode !== 0 || r.timedOut) await failMaven(ctx, step, r);
}

async function readClasspath(ctx: AuditContext): Promise<string[]> {
  const text = (await readProjectFileIfExists(ctx.host.envDir, ctx.hostPath(javaLayout(ctx).classpathFile))) ?? '';
  return text.trim().split(':').filter(Boolean);
}

/** A reactor (`<modules>`): its modules can depend on each other, which Maven resolves only once they are compiled. */
async function isReactor(ctx: AuditContext): Promise<boolean> {
  const file = path.join(ctx.host.projectDir, 'pom.xml');
  const project = parsePomXml(await readProjectFile(ctx.host.projectDir, file, 'utf8'), file);
  return (element(project, 'modules')?.module ?? []).length > 0;
}

/**
 * What every traced JVM gets: a class-load log, and a writable `user.home` (the JVM takes it from the password
 * database, not from HOME: for the sandbox's user that is a directory that does not exist, on the host /root).
 */
function jvmOptions(ctx: AuditContext): string[] {
  return [...tracedJvmOptions(javaLayout(ctx).classLoadLogs), `-Duser.home=${sandboxHome(ctx.sandbox.workDir)}`];
}

/** What Maven resolved (install), and the class path of the built project (build). */
export interface MavenInstallDetails {
  resolved: ListedArtifact[];
  /** target/classes, then each dependency jar in Maven's order; set by build(). */
  classpath?: string;
}

export const javaEcosystem: EcosystemModule<MavenInstallDetails> = {
  ...javaFacts,
  repro: javaRepro,

  extractDeclared: (projectDir) => extractJavaDeclared(projectDir),

  // Parents and BOMs outside the project come from the registry through Maven, so D1 is the same on a first
  // audit (empty cache) as on a later one.
  declaredInEnvironment: (projectDir, ctx) => extractJavaDeclared(projectDir, { fetch: (g, a, v) => fetchPom(ctx, g, a, v) }),

  async install(ctx): Promise<InstallResult<MavenInstallDetails>> {
    const started = performance.now();
    const layout = javaLayout(ctx);
    await mkdir(ctx.hostPath(layout.root), { recursive: true });
    const commands: string[] = [];
    // The whole resolved graph, every scope: test scope is dropped when reading it (excludeScope=test would drop all).
    // Appended, so that every module of a reactor adds its list; the file is new in each environment.
    // In a reactor, modules are compiled first so that one module's dependency on another resolves (to its classes).
    const list: MavenCall = {
      goals: [...((await isReactor(ctx)) ? ['compile'] : []), `${DEPENDENCY_PLUGIN}:list`],
      properties: { outputFile: layout.dependencyList, appendOutput: 'true' },
      updateFailures: true,
    };
    await runOrFail(ctx, 'install', list, true, commands);
    const artifacts = parseDependencyList(await readProjectFile(ctx.host.envDir, ctx.hostPath(layout.dependencyList), 'utf8'));
    return {
      installed: installedLayer(artifacts),
      details: { resolved: artifacts },
      commands,
      durationMs: performance.now() - started,
    };
  },

  async build(ctx, install): Promise<void> {
    const layout = javaLayout(ctx);
    const copyGoals = [`${DEPENDENCY_PLUGIN}:copy-dependencies`, `${DEPENDENCY_PLUGIN}:build-classpath`];
    const copyProperties = {
      includeScope: 'runtime',
      outputDirectory: layout.dependencyJars,
      'mdep.outputFile': layout.classpathFile,
      'mdep.prefix': layout.dependencyJars,
    };
    if (await isReactor(ctx)) {
      // One module's jar is known to Maven only in the session that packaged it: package and copy together.
      await runOrFail(ctx, 'build', { goals: ['package', ...copyGoals], properties: { skipTests: 'true', ...copyProperties } }, true, install.commands);
    } else {
      await runOrFail(ctx, 'build', { goals: ['package'], properties: { skipTests: 'true' } }, true, install.commands);
      // Offline: install already resolved every runtime artifact and the dependency plugin.
      await runOrFail(ctx, 'build', { goals: copyGoals, properties: copyProperties, offline: true }, false, install.commands);
    }
    await mkdir(ctx.hostPath(layout.classLoadLogs), { recursive: true });
    // target/classes first, then each dependency jar in Maven's order; never the fat JAR, which would hide them.
    install.details.classpath = [layout.projectClasses, ...(await readClasspath(ctx))].join(':');
  },

  async defaultRun(ctx, install): Promise<RunChoice> {
    const main = await findMainClass(ctx.host.projectDir);
    if (!main) {
      throw new NoEntryPointError(
        'no main class found: the built jar has no Main-Class and no shade, assembly, jar or exec plugin names a <mainClass>',
        'give the command to trace with --run, e.g. --run "java com.example.Main" (CLASSPATH holds target/classes and the dependency jars)',
      );
    }
    const classpath = install.details.classpath ?? javaLayout(ctx).projectClasses;
    return {
      argv: ['java', ...jvmOptions(ctx), '-cp', classpath, main.className],
      display: `java -cp "$CLASSPATH" ${main.className}`,
      reason: `${main.reason}, run on target/classes and the copied dependency jars ($CLASSPATH)`,
      env: { CLASSPATH: classpath },
    };
  },

  userRun(command, ctx, install): RunChoice {
    // Every JVM the command starts logs its class loading, so the class-level layer exists for --run too; CLASSPATH
    // lets `java <main class>` find the project's classes and its dependencies.
    const classpath = install.details.classpath;
    return {
      argv: ['sh', '-c', command],
      display: command,
      reason: '--run',
      env: { JAVA_TOOL_OPTIONS: jvmOptions(ctx).join(' '), ...(classpath ? { CLASSPATH: classpath } : {}) },
    };
  },

  attribute: (files, ctx) => attributeJava(files, ctx),

  /** One version, not a range, LATEST/RELEASE or a snapshot. */
  isPinned: (dep) => dep.version !== undefined && !/[[\](),]/.test(dep.version) && !/^(LATEST|RELEASE)$|-SNAPSHOT$/.test(dep.version),
  resolvedVersion: (dep, install) => resolvedArtifactVersion(dep, install.installed),
  componentFacts: mavenComponentFacts,
  staticImports: (ctx) => javaStaticImports(ctx),
  manifestEditor: mavenManifestEditor,
};
