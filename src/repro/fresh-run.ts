/** One run of the test command in a fresh sandbox, on a fresh install or a fresh copy of a shared one, shaped by the run's factors. */
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError, InfrastructureError, NoEntryPointError, StepFailedError, UsageError } from '../core/errors.js';
import { shellQuote } from '../core/shell.js';
import { whyNotStarted } from '../audit/run-start.js';
import { createWorkDir, removeWorkDir, type WorkDir } from '../audit/workspace.js';
import { auditContext } from '../ecosystems/context.js';
import type { DatedInstall, EnvironmentFacts } from '../ecosystems/repro-facts.js';
import type { AuditContext, InstallResult, RunChoice } from '../ecosystems/types.js';
import { createSandbox, type BackendChoice } from '../sandbox/index.js';
import { isolatedEnvironment } from '../sandbox/environment.js';
import type { ExecRequest, ExecResult, Sandbox } from '../sandbox/types.js';
import { traceRun, type TracerChoice } from '../trace/index.js';
import { FAKETIME_LIBRARY, type RunShape } from './factors.js';
import { emptyDir, type InstallTemplates } from './install-template.js';
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
  /** The installs shared by runs that only change the run's environment; absent: every run installs fresh (--fresh-installs). */
  installs?: InstallTemplates<EnvironmentFacts>;
  /**
   * The date (ISO) the shared live install was resolved at, when it is the reference run's own: a run that pins the
   * dependencies to that date takes it, as it is the resolution as of then. Absent: a pinned run resolves against the date.
   */
  liveInstalledAt?: string;
}

export interface FreshRunResult {
  outcome: Outcome;
  durationMs: number;
  installMs: number;
  /** `reused`: the run had a copy of an earlier run's install (installMs is the copy's time). */
  install: 'fresh' | 'reused';
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

/** The key of the shared install against the live registry. */
const LIVE = 'live';

/**
 * Which shared install a run can take: one per kind of install (the live registry, or the registry as of one date). A
 * run that varies dependency drift resolves anew, as does every run when installs are not shared or the ecosystem
 * cannot share them. `dated`: how the install steps resolve as of the run's date, when they install.
 */
async function installPlan(setup: RunSetup, shape: RunShape): Promise<{ dated?: DatedInstall; key?: string }> {
  const reusable = setup.installs && setup.kind.installNotShared === undefined && !shape.settings.some((s) => s.factor === 'dependency-drift' && s.mode === 'varied');
  if (reusable && shape.indexDate !== undefined && shape.indexDate === setup.liveInstalledAt && setup.installs!.get(LIVE)) return { key: LIVE };
  const dated = shape.indexDate && setup.kind.datedResolution.supported ? await setup.datedInstall(shape.indexDate) : undefined;
  const key = reusable ? (dated ? `as of ${shape.indexDate}` : LIVE) : undefined;
  return { ...(dated ? { dated } : {}), ...(key ? { key } : {}) };
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
  const plain = decide({});
  const { dated, key } = await installPlan(setup, plain);
  const template = key === undefined ? undefined : setup.installs!.get(key);
  const restoring = performance.now();
  let work: WorkDir;
  if (template) {
    await setup.installs!.restore(template);
    work = template.work;
  } else {
    work = await createWorkDir(setup.projectDir);
  }
  const restoreMs = Math.round(performance.now() - restoring);
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
    const started = performance.now();
    let install: InstallResult;
    let facts: EnvironmentFacts;
    if (template) {
      ({ install, facts } = template);
    } else {
      try {
        const installCtx = { ...ctx, sandbox: withDatedInstall(sandbox, dated) };
        install = await setup.kind.install(installCtx);
        await installTestTools(setup.kind, setup.testInstalls, installCtx, install);
      } catch (err) {
        if (!(err instanceof StepFailedError) || err instanceof InfrastructureError) throw err;
        return { ...installFailed(err, started), shape: plain };
      }
      if (setup.command !== undefined) await setup.kind.prepareTests?.(ctx, setup.runner?.runner);
      facts = setup.runner && setup.kind.environmentFacts ? await setup.kind.environmentFacts(setup.runner.runner, (command) => probe(setup, ctx, install, command)) : {};
    }
    const installMs = template ? restoreMs : Math.round(performance.now() - started);
    if (key !== undefined && !template) {
      await setup.installs!.keep(key, work, install, facts);
      setup.progress('the install is kept: the next runs that change only the run\'s environment get a copy of it');
    }
    const installed = { installMs, install: template ? ('reused' as const) : ('fresh' as const) };
    const shape = decide(facts);
    const reportInside = path.posix.join(ctx.envDir, 'test-report');
    const report = setup.runner ? reportRequest(setup.runner.runner, reportInside) : { args: [], env: {} };
    let choice: RunChoice;
    try {
      choice = setup.command === undefined ? await buildAndEntry(setup, ctx, install, work.project) : setup.kind.run(testCommand(setup.command, setup.runner, [...report.args, ...shape.runnerArgs]), ctx, install);
    } catch (err) {
      if (err instanceof NoEntryPointError) return { outcome: { status: 'not-started', exitCode: null, note: err.message }, durationMs: 0, ...installed, shape };
      if (!(err instanceof StepFailedError) || err instanceof InfrastructureError) throw err;
      return { ...installFailed(err, started), install: installed.install, shape };
    }
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
    return { outcome, durationMs: Math.round(r.durationMs), ...installed, command: choice.display ?? setup.command, ...(traced && !notStarted ? { traced } : {}), shape };
  } finally {
    await sandbox?.dispose();
    // A shared install's work directory stays held (its path is in the installed tree); the next run fills it anew.
    if (setup.installs?.holds(work)) await emptyDir(work.root);
    else await removeWorkDir(work);
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
  return { outcome, durationMs: 0, installMs: Math.round(performance.now() - started), install: 'fresh' };
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
