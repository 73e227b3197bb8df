import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StepFailedError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { ExecResult } from '../../sandbox/types.js';
import { configuredRegistry, downloadFailureClass, registryUrl, timeoutFailureClass, type Registry } from '../registry.js';
import type { AuditContext, InstallFailureClass } from '../types.js';
import { installTimeoutHint, installTimeoutText } from '../step-limit.js';

/**
 * Plugin versions envproof invokes itself, pinned so that results do not move with Maven's defaults. The local
 * repository is the sandbox's shared cache (MAVEN_OPTS from core/cache.ts), never the user's ~/.m2.
 */
export const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1';

export interface MavenCall {
  goals: string[];
  /** A settings file (`-s`): the mirror of Maven Central when ENVPROOF_REGISTRY_MAVEN names one. */
  settingsFile?: string;
  properties?: Record<string, string>;
  offline?: boolean;
  /** Re-ask the repository about artifacts an earlier run could not get (Maven caches such failures). */
  updateFailures?: boolean;
  /** A POM other than the project's. */
  pomFile?: string;
}

export function mavenArgv(call: MavenCall): string[] {
  return [
    'mvn',
    '-B',
    '-q',
    '-Dstyle.color=never',
    ...(call.offline ? ['-o'] : []),
    ...(call.updateFailures ? ['-U'] : []),
    ...(call.pomFile ? ['-f', call.pomFile] : []),
    ...(call.settingsFile ? ['-s', call.settingsFile] : []),
    ...call.goals,
    ...Object.entries(call.properties ?? {}).map(([k, v]) => `-D${k}=${v}`),
  ];
}

export function mavenCommandLine(call: MavenCall): string {
  return mavenArgv(call).join(' ');
}

function stepTimeoutMs(ctx: AuditContext): number {
  return ctx.installTimeoutMs;
}

/** Maven Central, or the mirror of it ENVPROOF_REGISTRY_MAVEN names. */
export const MAVEN_REGISTRY: Registry = { variable: 'ENVPROOF_REGISTRY_MAVEN', fallback: 'https://repo.maven.apache.org/maven2/' };

/** Settings that send Maven Central's requests to the configured mirror (a project's own repositories are left alone). */
async function mirrorSettings(ctx: AuditContext, url: string): Promise<string | undefined> {
  const file = path.posix.join(ctx.envDir, 'maven-settings.xml');
  const hostFile = ctx.sandbox.toHost(file);
  if (!hostFile) return undefined;
  const xml = url.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  await mkdir(path.dirname(hostFile), { recursive: true });
  await writeFile(hostFile, `<settings><mirrors><mirror><id>envproof-registry</id><mirrorOf>central</mirrorOf><url>${xml}</url></mirror></mirrors></settings>\n`);
  return file;
}

export async function runMaven(ctx: AuditContext, call: MavenCall, network: boolean): Promise<ExecResult> {
  const mirror = configuredRegistry(MAVEN_REGISTRY);
  const settingsFile = mirror ? await mirrorSettings(ctx, mirror) : undefined;
  return ctx.sandbox.exec({ argv: mavenArgv({ ...call, ...(settingsFile ? { settingsFile } : {}) }), cwd: ctx.projectDir, timeoutMs: stepTimeoutMs(ctx), network });
}

// Maven's console may carry colour codes even in batch mode.
const ANSI = /\x1b\[[0-9;]*m/g;

export function mavenOutput(r: ExecResult): string {
  return `${r.stdout}\n${r.stderr}`.replace(ANSI, '');
}

/** The [ERROR] lines Maven printed, without its generic advice; the whole tail when there are none. */
export function errorSummary(output: string): string {
  const lines = output
    .split('\n')
    .filter((l) => l.startsWith('[ERROR]') && !/re-run Maven|full stack trace|Help 1|possible solutions|^\[ERROR\]\s*$/i.test(l));
  return lines.length ? lines.join('\n') : tail(output);
}

const NETWORK = /UnknownHostException|Connection (?:refused|timed out|reset)|Network is unreachable|No route to host|Could not transfer artifact|in offline mode|Temporary failure in name resolution|SSLHandshakeException/i;
const CONFIGURATION = /Non-parseable POM|Non-resolvable (?:parent|import) POM|Malformed POM|'[\w.]+' for [^ ]+ is missing|Unknown packaging|has \d+ errors?|Unresolveable build extension|Plugin [^ ]+ or one of its dependencies could not be resolved|Invalid (?:plugin )?descriptor|Unknown lifecycle phase|No goals have been specified|is not a valid scope|The goal you specified requires a project/i;
const NO_VERSION_IN_RANGE = /No versions available for ([^\s:]+):([^\s:]+)\S* within specified range/;
const MISSING_ARTIFACT = /(?:Could not find artifact|Failure to find|artifacts could not be resolved:|Missing artifact) ([^\s:]+):([^\s:]+):|\s([^\s:]+):([^\s:]+):\S+ was not found in/;

export type MavenFailure = { failureClass: InstallFailureClass; message: string; missing?: { groupId: string; artifactId: string } };

/** The endpoints Maven's transfer errors name: the repository URL, the host:port it could not connect to. */
export function mavenFailingEndpoints(output: string): string[] {
  return [
    ...[...output.matchAll(/from\/to \S+ \((\S+?)\)/g)].map((m) => m[1]!),
    ...[...output.matchAll(/Connect to (\S+?:\d+)/g)].map((m) => m[1]!),
    ...[...output.matchAll(/(?:UnknownHostException|Unknown host):? ([\w.-]+)/g)].map((m) => m[1]!),
  ];
}

/** What kind of failure Maven reported. A missing artifact is refined by `probeArtifactExists`. */
export function classifyMavenFailure(output: string): MavenFailure {
  const range = NO_VERSION_IN_RANGE.exec(output);
  if (range) return { failureClass: 'no-matching-version', message: `no version of ${range[1]}:${range[2]} matches the requested range` };
  // Before missing artifacts: an unreachable repository also reports the artifacts it could not resolve.
  if (NETWORK.test(output)) return { failureClass: 'network', message: 'Maven could not reach a repository' };
  const missing = MISSING_ARTIFACT.exec(output);
  if (missing) {
    const groupId = missing[1] ?? missing[3] ?? '';
    const artifactId = missing[2] ?? missing[4] ?? '';
    return { failureClass: 'no-such-package', message: `${groupId}:${artifactId} could not be found in the repository`, missing: { groupId, artifactId } };
  }
  if (CONFIGURATION.test(output)) return { failureClass: 'build-configuration', message: 'Maven rejected the build configuration (pom.xml)' };
  if (/COMPILATION ERROR/.test(output)) return { failureClass: 'other', message: 'the code does not compile' };
  return { failureClass: 'other', message: 'Maven failed' };
}

/**
 * Whether any version of groupId:artifactId exists: a one-dependency POM asking for the range [0,). Tells a
 * wrong version (no-matching-version) from an artifact that does not exist (no-such-package).
 */
export async function probeArtifactExists(ctx: AuditContext, groupId: string, artifactId: string): Promise<boolean | undefined> {
  // The names come from Maven's output about an untrusted POM: only plain coordinates go into the probe.
  if (![groupId, artifactId].every((c) => /^[\w.-]+$/.test(c))) return undefined;
  const dir = path.posix.join(ctx.envDir, 'probe');
  const hostDir = ctx.sandbox.toHost(dir);
  if (!hostDir) return undefined;
  await mkdir(hostDir, { recursive: true });
  const pom = `<project><modelVersion>4.0.0</modelVersion><groupId>envproof.probe</groupId><artifactId>probe</artifactId><version>0</version>
<dependencies><dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>[0,)</version><type>pom</type></dependency></dependencies></project>\n`;
  await writeFile(path.join(hostDir, 'pom.xml'), pom);
  const r = await runMaven(ctx, { goals: [`${DEPENDENCY_PLUGIN}:list`], properties: { excludeTransitive: 'true' }, pomFile: path.posix.join(dir, 'pom.xml'), updateFailures: true }, true);
  if (r.exitCode === 0) return true;
  return NO_VERSION_IN_RANGE.test(mavenOutput(r)) ? false : undefined;
}

/** Throws the StepFailedError for a failed Maven call, with the class refined for missing artifacts. */
export async function failMaven(ctx: AuditContext, step: 'install' | 'build', r: ExecResult): Promise<never> {
  const output = mavenOutput(r);
  // A step that does not finish is the registry's fault only when the registry does not answer.
  if (r.timedOut) throw new StepFailedError(step, await timeoutFailureClass(MAVEN_REGISTRY), `mvn ${installTimeoutText(stepTimeoutMs(ctx))}`, tail(output), installTimeoutHint(stepTimeoutMs(ctx)));
  if (r.spawnError) throw new StepFailedError(step, 'other', `mvn could not start: ${r.spawnError}`, '', 'install Maven (mvn) and a JDK');
  const failure = classifyMavenFailure(output);
  if (failure.failureClass === 'network') {
    failure.failureClass = await downloadFailureClass(MAVEN_REGISTRY, mavenFailingEndpoints(output));
    if (failure.failureClass === 'registry-unreachable') failure.message = `Maven could not reach ${registryUrl(MAVEN_REGISTRY)}`;
  }
  if (failure.missing) {
    const exists = await probeArtifactExists(ctx, failure.missing.groupId, failure.missing.artifactId);
    if (exists) {
      failure.failureClass = 'no-matching-version';
      failure.message = `${failure.missing.groupId}:${failure.missing.artifactId} exists, but not in the requested version`;
    }
  }
  throw new StepFailedError(step, failure.failureClass, `${step === 'install' ? 'dependency resolution' : 'the build'} failed: ${failure.message}`, errorSummary(output));
}

/**
 * Gets the POM of g:a:v into the shared local repository through Maven (`dependency:get`, with the network), the
 * way Maven itself gets a parent or an imported BOM. Undefined when it succeeded, else why not.
 */
export async function fetchPom(ctx: AuditContext, groupId: string, artifactId: string, version: string): Promise<string | undefined> {
  // The coordinates come from an untrusted POM: only plain ones reach Maven's command line.
  if (![groupId, artifactId, version].every((c) => /^[\w.-]+$/.test(c))) return 'its coordinates are not plain names';
  const call: MavenCall = { goals: [`${DEPENDENCY_PLUGIN}:get`], properties: { artifact: `${groupId}:${artifactId}:${version}:pom`, transitive: 'false' } };
  ctx.progress(`fetching ${groupId}:${artifactId}:${version}:pom through Maven (a parent or BOM of the project)`);
  // Not in the project directory: Maven would try to build the project's model, which needs the very POM asked for.
  const r = await ctx.sandbox.exec({ argv: mavenArgv(call), cwd: ctx.envDir, timeoutMs: stepTimeoutMs(ctx), network: true });
  if (r.exitCode === 0 && !r.timedOut) return undefined;
  return r.timedOut ? 'Maven timed out' : r.spawnError ? `mvn could not start: ${r.spawnError}` : classifyMavenFailure(mavenOutput(r)).message;
}
