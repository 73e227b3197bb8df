import type { DeclaredResult, EcosystemId } from '../core/types.js';
import { EnvproofError, InfrastructureError, NoEntryPointError, StepFailedError, UsageError } from '../core/errors.js';
import type { AttributionResult, AuditContext, EcosystemModule, InstallResult, RunChoice } from '../ecosystems/types.js';
import { auditContext } from '../ecosystems/context.js';
import { readmeRunCommand } from './readme-run.js';
import { createSandbox, type BackendChoice, type EnvironmentChoice } from '../sandbox/index.js';
import type { ExecIsolation, ExecResult, Sandbox, SandboxBackend } from '../sandbox/types.js';
import { traceRun, type TraceRequest, type TracerChoice } from '../trace/index.js';
import { detectEcosystem } from './detect.js';
import { keepNamedFiles } from './kept-files.js';
import { layer, measure, type Layers } from './measure.js';
import { measureOverhead } from './overhead.js';
import type { AuditReport, PartialAudit, PhaseTimes, RunOutcome } from './report.js';
import { assembleReport, auditOutputs } from './assemble.js';
import { whyNotStarted } from './run-start.js';
import { checkProjectDir, createWorkDir, removeWorkDir } from './workspace.js';
import type { IgnoreLists } from './findings.js';
import { headAndTail } from '../core/process.js';
import { shellCommandLine } from '../core/shell.js';
import { DEFAULT_INSTALL_TIMEOUT_SEC } from '../ecosystems/step-limit.js';

/** The limit of install and build steps an audit's options ask for. */
export function installTimeoutMs(opts: Pick<AuditOptions, 'installTimeoutSec'>): number {
  return (opts.installTimeoutSec ?? DEFAULT_INSTALL_TIMEOUT_SEC) * 1000;
}

export interface AuditOptions {
  dir: string;
  ecosystem: EcosystemId | 'auto';
  /** Shell commands to trace instead of the ecosystem's default entry point; D3 is the union of their traces. */
  run?: string[];
  /** Per finding kind, package names reported but not counted as findings (the configuration's `ignore`). */
  ignore?: IgnoreLists;
  /** Limit of each traced run. */
  timeoutSec: number;
  /** Limit of each install and build step (default DEFAULT_INSTALL_TIMEOUT_SEC). */
  installTimeoutSec?: number;
  keep: boolean;
  sandbox: BackendChoice;
  /** The environment beyond the backend: extra Debian packages, the container base image. */
  environment?: EnvironmentChoice;
  /** With `--sandbox auto`, run on the host (with a warning) where bubblewrap cannot run, instead of refusing. */
  allowHostFallback?: boolean;
  /**
   * Per ecosystem, which of its alternative views of D3 the metrics use instead of its default (e.g. java:
   * `opened`, the paper's jars-opened figures, instead of `loaded`).
   */
  tracedView?: Partial<Record<EcosystemId, string>>;
  /** Which tracer traces the run (default auto: the fast one where it can run, else strace). */
  tracer?: TracerChoice;
  /** D1 as the caller already parsed it from this project's manifest (the protocol does): not parsed again. */
  declared?: DeclaredResult;
  /** After the traced run, this many untraced and traced runs, alternating, to measure what tracing costs. */
  overhead?: number;
  /**
   * Filled in as the audit gets further (D1 once the manifest is read, D2 once the install succeeded, ...):
   * after a failure it holds what had been computed, for a report of the failed audit.
   */
  partial?: PartialAudit;
  /**
   * For programs that serve rather than end (a backend under test): called once the traced program has started;
   * the program is stopped when the returned promise settles (or ends by itself before). `ended` resolves when
   * the program has ended, whoever stopped it.
   */
  whileRunning?: (program: { ended: Promise<void> }) => Promise<void>;
  /** How much of the program's output the report keeps (default 4000 bytes): its end, */
  outputTailBytes?: number;
  /** and this much of its beginning when it is longer (default none). */
  outputHeadBytes?: number;
  progress(message: string): void;
  /** Told which backend the sandbox is, as soon as it exists (also when a later step fails). */
  onSandbox?(backend: SandboxBackend): void;
  /** Warnings for the terminal that `-q` does not silence (default: progress). */
  warn?(message: string): void;
}

const OUTPUT_TAIL_BYTES = 4000;

function withoutOwn<T extends { name: string }>(deps: readonly T[], own: ReadonlySet<string>): T[] {
  return deps.filter((d) => !own.has(d.name));
}

/** Where a sandbox did not say what it isolated, nothing is claimed. */
const UNKNOWN_ISOLATION: ExecIsolation = { networkOff: false, filesystemConfined: false, ownProcessTree: false, shortfall: 'the sandbox did not report what it isolated' };

function outcome(choice: RunChoice, r: ExecResult, notStarted: string | undefined, kept: { head: number; tail: number }): Omit<RunOutcome, 'tracer'> {
  const output = `${r.stdout}${r.stdout && r.stderr ? '\n' : ''}${r.stderr}`;
  return {
    command: choice.display ?? shellCommandLine(choice.argv),
    argv: choice.argv,
    reason: choice.reason,
    env: choice.env ?? {},
    started: notStarted === undefined,
    ...(notStarted !== undefined ? { notStarted } : {}),
    exitCode: r.exitCode,
    signal: r.signal,
    timedOut: r.timedOut,
    success: notStarted === undefined && r.exitCode === 0 && !r.timedOut,
    durationMs: Math.round(r.durationMs),
    outputTail: headAndTail(output, kept.head, kept.tail),
    isolation: r.isolation ?? UNKNOWN_ISOLATION,
  };
}

/** Failures of the sandbox or the tracer are the machinery's, not the project's. */
async function asInfrastructure<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof EnvproofError && !(err instanceof InfrastructureError) && !(err instanceof UsageError)) throw new InfrastructureError(err.message, err.hint, err.details);
    throw err;
  }
}

/** The failure, with the files its message names inside the sandbox copied where the user can open them. */
async function withKeptFiles(err: StepFailedError, sandbox: Sandbox, keep: boolean): Promise<StepFailedError> {
  const kept = await keepNamedFiles(`${err.message}\n${err.output}`, sandbox, keep);
  if (kept.length === 0) return err;
  const output = `${err.output.trimEnd()}\n${kept.map((l) => `[envproof] ${l}`).join('\n')}`;
  return new StepFailedError(err.step, err.failureClass, err.message, output, err.hint);
}

/** The ecosystem's own entry point, else the command the README's run section gives. */
export async function entryPoint(module: EcosystemModule, ctx: AuditContext, install: InstallResult, hostProject: string): Promise<RunChoice> {
  try {
    return await module.defaultRun(ctx, install);
  } catch (err) {
    if (!(err instanceof NoEntryPointError)) throw err;
    const command = await readmeRunCommand(hostProject);
    if (!command) throw err;
    return { ...module.userRun(command, ctx, install), reason: 'the run section of README.md' };
  }
}

/** Adds each phase's wall time as the audit moves from one to the next. */
class PhaseClock {
  readonly phases: PhaseTimes = { prepare: 0, install: 0, build: 0, run: 0, tracing: 0, analysis: 0, overhead: 0 };
  private t = performance.now();
  lap(phase: keyof PhaseTimes): void {
    const now = performance.now();
    this.phases[phase] += Math.round(now - this.t);
    this.t = now;
  }
}

/** An audit up to its traced run: the project installed (and built) in a fresh sandbox, the command to trace chosen. */
export interface PreparedAudit {
  module: EcosystemModule;
  projectDir: string;
  declared: DeclaredResult;
  /** The project's own packages (never its own dependency). */
  own: ReadonlySet<string>;
  sandbox: Sandbox;
  sandboxInfo: AuditReport['sandbox'];
  ctx: AuditContext;
  install: InstallResult;
  /** The commands to trace (the entry point, or each `--run`), and what each traced run is given. */
  choices: RunChoice[];
  requests: TraceRequest[];
  notes: string[];
  /** Removes the sandbox and, unless kept, the work directory. */
  close(): Promise<void>;
}

export type PrepareOptions = Omit<AuditOptions, 'tracedView' | 'overhead'>;

/** D1 from the manifest, D2 from a fresh install, the build, and the entry point. */
export async function prepareAudit(opts: PrepareOptions, clock = new PhaseClock()): Promise<PreparedAudit> {
  const partial: PartialAudit = opts.partial ?? {};
  partial.phasesMs = clock.phases;
  const projectDir = await checkProjectDir(opts.dir);
  partial.project = projectDir;
  const { module, alsoPresent } = await detectEcosystem(projectDir, opts.ecosystem);
  partial.ecosystem = module.id;
  const notes: string[] = [];
  partial.notes = notes;
  if (alsoPresent.length) notes.push(`manifests of ${alsoPresent.join(', ')} are present too; audited as ${module.id} (use --ecosystem to choose)`);
  opts.progress(`${module.projectKind} project: reading the manifest (D1)`);
  // Read before any environment exists, so a broken manifest fails at once.
  let declared = opts.declared ?? (await module.extractDeclared(projectDir));
  const recordDeclared = () => {
    const own = new Set(declared.own ?? []);
    Object.assign(partial, {
      manifest: declared.manifest,
      layers: { declared: layer(withoutOwn(declared.declared, own)) },
      otherDeclared: Object.fromEntries(Object.entries(declared.other).map(([k, v]) => [k, layer(v)])),
      skipped: declared.skipped,
      ownPackages: [...own].sort(),
    });
  };
  recordDeclared();
  clock.lap('analysis');

  const work = await createWorkDir(projectDir);
  if (opts.keep) {
    opts.progress(`work directory (kept): ${work.root}`);
    partial.workDir = work.root;
  }
  let sandbox: Sandbox | undefined;
  const close = async () => {
    await sandbox?.dispose();
    if (!opts.keep) await removeWorkDir(work);
  };
  try {
    sandbox = await asInfrastructure(
      createSandbox({
        ...opts.environment,
        backend: opts.sandbox,
        language: module.id,
        hostWorkDir: work.root,
        progress: opts.progress,
        allowHostFallback: opts.allowHostFallback,
      }),
    );
    if (sandbox.isolationWarning) (opts.warn ?? opts.progress)(`warning: ${sandbox.isolationWarning}`);
    const sandboxInfo = describeSandbox(sandbox, opts.sandbox);
    partial.sandbox = sandboxInfo;
    opts.onSandbox?.(sandbox.backend);
    const ctx = auditContext(sandbox, { timeoutMs: opts.timeoutSec * 1000, installTimeoutMs: installTimeoutMs(opts), tracer: opts.tracer, progress: opts.progress });
    clock.lap('prepare');
    if (module.declaredInEnvironment) {
      declared = await module.declaredInEnvironment(projectDir, ctx, declared);
      recordDeclared();
      clock.lap('analysis');
    }
    notes.push(...declared.notes);

    opts.progress('installing into a fresh environment (D2)');
    const install: InstallResult = await module.install(ctx, declared);
    const own = new Set([...(declared.own ?? []), ...(install.own ?? [])]);
    partial.layers = { declared: layer(withoutOwn(declared.declared, own)), installed: layer(withoutOwn(install.installed, own)) };
    partial.ownPackages = [...own].sort();
    partial.install = { commands: install.commands };
    clock.lap('install');
    if (module.build) {
      opts.progress('building');
      await module.build(ctx, install);
    }
    clock.lap('build');

    const choices = opts.run?.length
      ? opts.run.map((command) => module.userRun(command, ctx, install))
      : [await entryPoint(module, ctx, install, work.project)];
    const requests = choices.map((c): TraceRequest => ({ argv: c.argv, cwd: ctx.projectDir, env: c.env, timeoutMs: ctx.timeoutMs, network: false }));
    return { module, projectDir, declared, own, sandbox, sandboxInfo, ctx, install, choices, requests, notes, close };
  } catch (err) {
    const reported = sandbox && err instanceof StepFailedError ? await withKeptFiles(err, sandbox, opts.keep) : err;
    await close();
    throw reported;
  }
}

/** Traces one command; with `whileRunning`, the program serves until that settles and is then stopped. */
async function traceOne(p: PreparedAudit, i: number, opts: AuditOptions, clock: PhaseClock): Promise<{ run: RunOutcome; files: Set<string>; byProgram: Map<string, Set<string>>; notes: string[] }> {
  const choice = p.choices[i]!;
  opts.progress(`tracing ${choice.display ?? shellCommandLine(choice.argv)} (${choice.reason})`);
  const stop = new AbortController();
  const tracing = traceRun(p.sandbox, { ...p.requests[i]!, signal: stop.signal }, opts.tracer);
  if (opts.whileRunning) {
    const ended = tracing.then(() => undefined, () => undefined);
    try {
      await opts.whileRunning({ ended });
    } finally {
      stop.abort();
      await ended;
    }
  }
  const trace = await asInfrastructure(tracing);
  // The program's own time is `run`; the rest of this step (reading the log, reaping leftovers) is `tracing`.
  const before = clock.phases.run;
  clock.lap('run');
  const tracingMs = Math.max(0, clock.phases.run - before - Math.round(trace.run.durationMs));
  clock.phases.tracing += tracingMs;
  clock.phases.run -= tracingMs;
  const run: RunOutcome = { ...outcome(choice, trace.run, whyNotStarted(trace.run, trace.execs), { head: opts.outputHeadBytes ?? 0, tail: opts.outputTailBytes ?? OUTPUT_TAIL_BYTES }), tracer: trace.tracer };
  const which = p.choices.length > 1 ? `run ${i + 1} (${run.command})` : 'the program';
  const notes = [...trace.notes, ...(await keepNamedFiles(run.outputTail, p.sandbox, opts.keep))];
  if (run.isolation.shortfall) notes.push(`${which}: the traced run did not get the isolation it asked for: ${run.isolation.shortfall}`);
  if (!run.started) notes.push(`${which} never started (${run.notStarted})`);
  else if (opts.whileRunning) notes.push(`${which} served while envproof exercised it, then was stopped`);
  else if (run.timedOut) notes.push(`${which} was stopped after ${opts.timeoutSec} s (--timeout); D3 holds what it loaded until then`);
  else if (!run.success) notes.push(`${which} did not exit with 0: D3 holds what it loaded before it failed`);
  return { run, files: run.started ? trace.files : new Set(), byProgram: run.started ? trace.byProgram : new Map<string, Set<string>>(), notes };
}

/** One audit: D1 from the manifest, D2 from a fresh install, D3 from the traced runs, then gaps, metrics and findings. */
export async function runAudit(opts: AuditOptions): Promise<AuditReport> {
  const clock = new PhaseClock();
  const phases = clock.phases;
  const p = await prepareAudit(opts, clock);
  const { module, declared, own, sandbox, notes, install } = p;
  try {
    const runs: RunOutcome[] = [];
    const tracedFiles = new Set<string>();
    const tracedByProgram = new Map<string, Set<string>>();
    for (let i = 0; i < p.choices.length; i++) {
      const traced = await traceOne(p, i, opts, clock);
      runs.push(traced.run);
      notes.push(...traced.notes);
      for (const f of traced.files) tracedFiles.add(f);
      for (const [program, files] of traced.byProgram) {
        const into = tracedByProgram.get(program) ?? tracedByProgram.set(program, new Set()).get(program)!;
        for (const f of files) into.add(f);
      }
    }
    const started = runs.filter((r) => r.started);
    if (p.choices.length > 1 && started.length) notes.push(`D3 is the union of the ${started.length} traced commands that started`);
    if (own.size) notes.push(`${[...own].sort().join(', ')} ${own.size === 1 ? 'is' : 'are'} the project itself: not counted as a dependency in any layer`);

    const layers: Layers = {
      declared: withoutOwn(declared.declared, own),
      installed: withoutOwn(install.installed, own),
      traced: null,
      alternatives: {},
      buildTools: { declared: declared.buildTools ?? [], found: install.buildTools ?? [] },
      ...(install.production ? { production: withoutOwn(install.production, own) } : {}),
    };
    let evidence: Record<string, string[]> = {};
    let attribution: AttributionResult | undefined;
    if (started.length) {
      opts.progress('attributing traced files to packages (D3)');
      attribution = await module.attribute(tracedFiles, p.ctx, install, tracedByProgram);
      const view = opts.tracedView?.[module.id];
      const tracedLayer = view ? attribution.alternatives?.[view] : attribution.traced;
      if (!tracedLayer) throw new EnvproofError(`the ${module.projectKind} audit has no "${view}" view of D3`);
      if (view) notes.push(`D3 is the "${view}" view (the metrics use it)`);
      layers.traced = withoutOwn(tracedLayer, own);
      layers.alternatives = Object.fromEntries(Object.entries(attribution.alternatives ?? {}).map(([k, v]) => [k, withoutOwn(v, own)]));
      evidence = Object.fromEntries(Object.entries(attribution.evidence).filter(([name]) => !own.has(name)));
    } else {
      notes.push('no traced command started: D3 is unknown, so no gap or metric that needs it is reported');
    }
    const measured = measure(layers, module.id);

    opts.progress('reading package facts and static imports');
    const outputs = await auditOutputs(p, layers, measured.gaps, attribution, opts.ignore, runs);
    clock.lap('analysis');
    const first = runs[0]!;
    if (opts.overhead && first.started) {
      opts.progress(`measuring the tracer's overhead: ${opts.overhead} untraced and ${opts.overhead} traced runs`);
      const overhead = await measureOverhead(sandbox, p.requests[0]!, opts.tracer, opts.overhead);
      first.overhead = overhead.overhead;
      notes.push(...overhead.notes);
      clock.lap('overhead');
    }
    const report = assembleReport(p, { runs, layers, measured, evidence, outputs, phases, keep: opts.keep });
    clock.lap('analysis');
    report.phasesMs = { ...phases };
    if (attribution?.loadedBySystemTools) {
      report.loadedBySystemTools = attribution.loadedBySystemTools.map(({ name, version, programs }) => ({ name, ...(version ? { version } : {}), programs }));
    }
    return report;
  } finally {
    await p.close();
  }
}

function describeSandbox(sandbox: Sandbox, requested: BackendChoice): AuditReport['sandbox'] {
  return {
    backend: sandbox.backend,
    requested,
    ...(sandbox.isolationWarning ? { warning: sandbox.isolationWarning } : {}),
    ...(sandbox.baseline
      ? { baseline: { debian: sandbox.baseline.debian.length, packages: Object.fromEntries(Object.entries(sandbox.baseline.packages).map(([k, v]) => [k, v.length])) } }
      : {}),
    ...(sandbox.baseline?.tools ? { tools: sandbox.baseline.tools } : {}),
  };
}
