/** One run of the test command in a fresh sandbox with a fresh install, shaped by the run's factors. */
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError, InfrastructureError, NoEntryPointError, StepFailedError, UsageError } from '../core/errors.js';
import { shellQuote } from '../core/shell.js';
import { whyNotStarted } from '../audit/run-start.js';
import { createWorkDir, removeWorkDir } from '../audit/workspace.js';
import { auditContext } from '../ecosystems/context.js';
import type { DatedInstall, EnvironmentFacts } from '../ecosystems/repro-facts.js';
import type { AuditContext, InstallResult, RunChoice } from '../ecosystems/types.js';
import { createSandbox, type BackendChoice } from '../sandbox/index.js';
import { isolatedEnvironment } from '../sandbox/environment.js';
import type { ExecRequest, ExecResult, Sandbox } from '../sandbox/types.js';
import { traceRun, type TracerChoice } from '../trace/index.js';
import { FAKETIME_LIBRARY, type RunShape } from './factors.js';
import type { ProjectKind } from './kinds.js';
import { checkClock, checkCpus, provideLocale } from './run-checks.js';
import { installTestTools } from './test-tools.js';
import { readResults, reportRequest, withRunnerArgs, type RunnerMatch } from './outcomes/runners.js';
import type { LoadedSet, Outcome } from './types.js';

export interface RunSetup {
  projectDir: string;
  kind: ProjectKind;
  /** The test command; absent: the project is built and its entry point run, as the audit runs it (`run --repro`). */
  command?: string;
  runner?: RunnerMatch;
  /** Trace the test command and record what it loaded (D3); absent: untraced. */
  tracer?: TracerChoice;
  backend: BackendChoice;
  /** Debian packages the user adds (--system-packages). */
  systemPackages: readonly string[];
  /** Limit of the test run. */
  timeoutMs: number;
  /** Limit of each install and build step. */
  installTimeoutMs: number;
  progress(message: string): void;
  /** Commands that install the test tools after the project's install (test-tools.ts). */
  testInstalls: readonly string[];
  /** The ecosystem's install as of a date, started on demand (pip's dated index, npm's --before). */
  datedInstall(date: string): Promise<DatedInstall>;
}

export interface FreshRunResult {
  outcome: Outcome;
  durationMs: number;
  installMs: number;
  /** The command that ran, as the user would type it (the entry point's, when no test command was given). */
  command?: string;
  traced?: LoadedSet;
}

/** A sandbox whose install steps (the runs with network) resolve as of the date `dated` stands for. */
function withDatedInstall(sandbox: Sandbox, dated: DatedInstall | undefined): Sandbox {
  if (!dated) return sandbox;
  const exec = (req: ExecRequest) => sandbox.exec(req.network ? dated.change(req) : req);
  return new Proxy(sandbox, { get: (target, prop) => (prop === 'exec' ? exec : Reflect.get(target, prop, target)) });
}

async function datedInstall(setup: RunSetup, shape: RunShape): Promise<DatedInstall | undefined> {
  return shape.indexDate && setup.kind.datedResolution.supported ? setup.datedInstall(shape.indexDate) : undefined;
}

/** Wrappers, in one extra directory, of every program the PATH finds: the same tools, found somewhere else. */
async function extraPathEntry(sandbox: Sandbox, dir: string, pathValue: string): Promise<void> {
  const host = sandbox.toHost(dir);
  if (!host) throw new EnvproofError(`the extra PATH entry ${dir} is not writable from the host`);
  await mkdir(host, { recursive: true });
  const seen = new Set<string>();
  for (const entry of pathValue.split(':')) {
    const hostEntry = entry ? sandbox.toHost(entry) : null;
    if (!hostEntry) continue;
    for (const name of await readdir(hostEntry).catch(() => [] as string[])) {
      if (seen.has(name)) continue;
      const st = await stat(path.join(hostEntry, name)).catch(() => undefined);
      if (!st?.isFile() || (st.mode & 0o111) === 0) continue;
      seen.add(name);
      const wrapper = path.join(host, name);
      await writeFile(wrapper, `#!/bin/sh\nexec ${shellQuote(path.posix.join(entry, name))} "$@"\n`);
      await chmod(wrapper, 0o755);
    }
  }
}

function statusOf(r: ExecResult): Outcome['status'] {
  if (r.timedOut) return 'timeout';
  return r.exitCode === 0 ? 'pass' : 'fail';
}

/** The request that runs a command (the test command, a probe) with the factors' prefix, environment and network. */
function shapedRequest(sandbox: Sandbox, ctx: AuditContext, shape: RunShape, choiceEnv: Record<string, string>, timeoutMs: number) {
  return async (argv: readonly string[], extraEnv: Record<string, string> = {}): Promise<ExecRequest> => {
    const env = { ...choiceEnv, ...shape.env, ...extraEnv };
    if (shape.homeName) {
      env.HOME = path.posix.join(sandbox.workDir, shape.homeName);
      await mkdir(sandbox.toHost(env.HOME) ?? env.HOME, { recursive: true });
    }
    if (shape.extraPathEntry) {
      const pathValue = env.PATH ?? isolatedEnvironment(sandbox.workDir).PATH!;
      const extra = path.posix.join(ctx.envDir, 'path-extra', 'bin');
      await extraPathEntry(sandbox, extra, pathValue);
      env.PATH = `${extra}:${pathValue}`;
    }
    return { argv: [...shape.prefix, ...argv], cwd: ctx.projectDir, env, timeoutMs, network: shape.network, ...(shape.visibleCpus ? { visibleCpus: shape.visibleCpus } : {}) };
  };
}

/** D3 of a traced run as `name version`, without the project's own packages and libfaketime (the clock factor's). */
async function loadedSet(setup: RunSetup, ctx: AuditContext, install: InstallResult, files: Set<string>): Promise<string[]> {
  const own = new Set(install.own ?? []);
  const program = new Set([...files].filter((f) => !f.includes('/faketime/') && f !== FAKETIME_LIBRARY));
  const { traced } = await setup.kind.attribute(program, ctx, install);
  return [...new Set(traced.filter((d) => !own.has(d.name)).map((d) => (d.version ? `${d.name} ${d.version}` : d.name)))].sort();
}

/**
 * One fresh run: a copy of the project, a new sandbox, a fresh install, then the test command shaped by `shape`.
 * `shape.settings` is completed in place with what could not be applied (a clock libfaketime did not shift).
 * `facts` is told what the environment holds before the factors are applied (`decide` makes the shape from them).
 */
export async function freshRun(setup: RunSetup, decide: (facts: EnvironmentFacts) => RunShape): Promise<FreshRunResult & { shape: RunShape }> {
  const work = await createWorkDir(setup.projectDir);
  let sandbox: Sandbox | undefined;
  try {
    sandbox = await createSandbox({
      backend: setup.backend,
      language: setup.kind.language,
      hostWorkDir: work.root,
      // The host has what setup.sh installed (libfaketime, Go); an isolating sandbox adds it to its environment.
      systemPackages: setup.backend === 'host' ? [] : [...setup.kind.systemPackages, ...setup.systemPackages],
      progress: setup.progress,
    }).catch((err: unknown) => {
      throw err instanceof EnvproofError && !(err instanceof UsageError) ? new InfrastructureError(err.message, err.hint, err.details) : err;
    });
    const ctx = auditContext(sandbox, { timeoutMs: setup.timeoutMs, installTimeoutMs: setup.installTimeoutMs, progress: setup.progress });
    const plain = decide({});
    const started = performance.now();
    let install: InstallResult;
    try {
      const installCtx = { ...ctx, sandbox: withDatedInstall(sandbox, await datedInstall(setup, plain)) };
      install = await setup.kind.install(installCtx);
      await installTestTools(setup.kind, setup.testInstalls, installCtx, install);
    } catch (err) {
      if (!(err instanceof StepFailedError) || err instanceof InfrastructureError) throw err;
      return { ...installFailed(err, started), shape: plain };
    }
    if (setup.command !== undefined) await setup.kind.prepareTests?.(ctx, setup.runner?.runner);
    const facts = setup.runner && setup.kind.environmentFacts ? await setup.kind.environmentFacts(setup.runner.runner, (command) => probe(setup, ctx, install, command)) : {};
    const shape = decide(facts);
    const reportInside = path.posix.join(ctx.envDir, 'test-report');
    const report = setup.runner ? reportRequest(setup.runner.runner, reportInside) : { args: [], env: {} };
    let choice: RunChoice;
    try {
      choice = setup.command === undefined ? await buildAndEntry(setup, ctx, install, work.project) : setup.kind.run(testCommand(setup.command, setup.runner, [...report.args, ...shape.runnerArgs]), ctx, install);
    } catch (err) {
      if (err instanceof NoEntryPointError) return { outcome: { status: 'not-started', exitCode: null, note: err.message }, durationMs: 0, installMs: Math.round(performance.now() - started), shape };
      if (!(err instanceof StepFailedError) || err instanceof InfrastructureError) throw err;
      return { ...installFailed(err, started), shape };
    }
    const installMs = Math.round(performance.now() - started);
    const env: Record<string, string> = { ...report.env };
    if (shape.pytestOptions.length) env.PYTEST_ADDOPTS = [env.PYTEST_ADDOPTS, ...shape.pytestOptions].filter(Boolean).join(' ');
    const request = shapedRequest(sandbox, ctx, shape, choice.env ?? {}, setup.timeoutMs);
    const exec = async (argv: readonly string[], extra?: Record<string, string>) => sandbox!.exec(await request(argv, extra));
    if (shape.locale) await provideLocale(ctx, shape, exec);
    if (shape.clock) await checkClock(setup.kind, ctx, install, shape, exec);
    if (shape.visibleCpus) await checkCpus(setup.kind, ctx, install, shape, exec);
    let r: ExecResult;
    let traced: LoadedSet | undefined;
    let execs: string[] = [];
    if (setup.tracer) {
      const t = await traceRun(sandbox, await request(choice.argv, env), setup.tracer);
      r = t.run;
      execs = t.execs;
      traced = { tracer: t.tracer, loaded: await loadedSet(setup, ctx, install, t.files), notes: t.notes };
    } else {
      r = await exec(choice.argv, env);
    }
    const notStarted = whyNotStarted(r, execs);
    const outcome: Outcome = { status: notStarted ? 'not-started' : statusOf(r), exitCode: r.exitCode, ...(notStarted ? { note: notStarted } : {}) };
    if (setup.runner && !notStarted) {
      const hostProject = sandbox.toHost(ctx.projectDir) ?? work.project;
      const tests = await readResults(setup.runner.runner, { stdout: r.stdout, hostReport: sandbox.toHost(reportInside) ?? '', hostProject, insideProject: ctx.projectDir });
      outcome.runner = setup.runner.runner;
      if (tests) outcome.tests = tests;
      if (!tests || Object.keys(tests).length === 0) outcome.note = `${setup.runner.runner} ${tests ? 'reported no tests' : 'left no report of its tests'} (exit ${r.exitCode ?? 'none'})${lastLines(r)}`;
    }
    return { outcome, durationMs: Math.round(r.durationMs), installMs, command: choice.display ?? setup.command, ...(traced && !notStarted ? { traced } : {}), shape };
  } finally {
    await sandbox?.dispose();
    await removeWorkDir(work);
  }
}

/** The last lines the command printed (stderr, else stdout), to say why a runner tested nothing. */
function lastLines(r: ExecResult): string {
  const lines = (r.stderr.trim() || r.stdout.trim()).split('\n').filter((l) => l.trim());
  return lines.length ? `:\n${lines.slice(-8).join('\n')}` : '';
}

/** An install (or build) that failed: the outcome says which step and why. */
function installFailed(err: StepFailedError, started: number): FreshRunResult {
  const outcome: Outcome = { status: 'install-failed', exitCode: null, note: `${err.message}${err.output ? `\n${err.output.slice(-2000)}` : ''}` };
  return { outcome, durationMs: 0, installMs: Math.round(performance.now() - started) };
}

/** The build, then the command the audit would run (the ecosystem's entry point, else the README's run section). */
async function buildAndEntry(setup: RunSetup, ctx: AuditContext, install: InstallResult, hostProject: string): Promise<RunChoice> {
  await setup.kind.build(ctx, install);
  return setup.kind.entry(ctx, install, hostProject);
}

function testCommand(command: string, runner: RunnerMatch | undefined, args: readonly string[]): string {
  return runner ? withRunnerArgs(command, runner, args) : command;
}

/** A command's output as the tests would run it, without the network (a probe of what the install holds). */
async function probe(setup: RunSetup, ctx: AuditContext, install: InstallResult, command: string): Promise<string> {
  const choice = setup.kind.run(command, ctx, install);
  return (await ctx.sandbox.exec({ argv: choice.argv, cwd: ctx.projectDir, env: choice.env, timeoutMs: 60_000, network: false })).stdout;
}
