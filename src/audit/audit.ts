import path from 'node:path';
import { nameSet, uniqueDependencies } from '../core/names.js';
import type { DeclaredResult, Dependency, EcosystemId } from '../core/types.js';
import { EnvproofError, InfrastructureError, NoEntryPointError } from '../core/errors.js';
import type { AttributionResult, AuditContext, EcosystemModule, InstallResult, RunChoice } from '../ecosystems/types.js';
import { readmeRunCommand } from './readme-run.js';
import { gapSets, projectMetrics } from '../metrics/project.js';
import { createSandbox, type BackendChoice } from '../sandbox/index.js';
import type { Sandbox } from '../sandbox/types.js';
import { traceRun, type TraceRequest, type TracerChoice } from '../trace/index.js';
import { measureOverhead } from './overhead.js';
import { detectEcosystem } from './detect.js';
import { AUDIT_SCHEMA_VERSION, type AuditReport, type LayerEntry, type PhaseTimes, type RunOutcome } from './report.js';
import { checkProjectDir, createWorkDir, removeWorkDir } from './workspace.js';
import { TOOL_VERSION } from '../core/version.js';
import { shellCommandLine } from '../core/shell.js';

export interface AuditOptions {
  dir: string;
  ecosystem: EcosystemId | 'auto';
  /** A shell command to trace instead of the ecosystem's default entry point. */
  run?: string;
  timeoutSec: number;
  keep: boolean;
  sandbox: BackendChoice;
  /**
   * Per ecosystem, which of its alternative views of D3 the metrics use instead of its default (e.g. java:
   * `opened`, the paper's jars-opened figures, instead of `loaded`).
   */
  tracedView?: Partial<Record<EcosystemId, string>>;
  /** Which tracer traces the run (default auto: the fast one where it can run, else strace). */
  tracer?: TracerChoice;
  /** After the traced run, this many untraced and traced runs, alternating, to measure what tracing costs. */
  overhead?: number;
  progress(message: string): void;
}

const OUTPUT_TAIL_BYTES = 4000;

function layer(deps: readonly Dependency[]): LayerEntry[] {
  return uniqueDependencies(deps).map(({ name, version, id }) => ({ name, ...(version ? { version } : {}), ...(id ? { id } : {}) }));
}

function outcome(choice: RunChoice, r: { exitCode: number | null; signal: string | null; timedOut: boolean; durationMs: number; stdout: string; stderr: string }): Omit<RunOutcome, 'tracer'> {
  const output = `${r.stdout}${r.stdout && r.stderr ? '\n' : ''}${r.stderr}`;
  return {
    command: shellCommandLine(choice.argv),
    argv: choice.argv,
    reason: choice.reason,
    exitCode: r.exitCode,
    signal: r.signal,
    timedOut: r.timedOut,
    success: r.exitCode === 0 && !r.timedOut,
    durationMs: Math.round(r.durationMs),
    outputTail: output.length > OUTPUT_TAIL_BYTES ? output.slice(-OUTPUT_TAIL_BYTES) : output,
  };
}

/** Failures of the sandbox or the tracer are the machinery's, not the project's. */
async function asInfrastructure<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof EnvproofError && !(err instanceof InfrastructureError)) throw new InfrastructureError(err.message, err.hint, err.details);
    throw err;
  }
}

/** The ecosystem's own entry point, else the command the README's run section gives. */
async function entryPoint(module: EcosystemModule, ctx: AuditContext, install: InstallResult, hostProject: string): Promise<RunChoice> {
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
  sandbox: Sandbox;
  ctx: AuditContext;
  install: InstallResult;
  choice: RunChoice;
  notes: string[];
  /** What the traced runs are given. */
  request: TraceRequest;
  /** Removes the sandbox and, unless kept, the work directory. */
  close(): Promise<void>;
}

export type PrepareOptions = Omit<AuditOptions, 'tracedView' | 'overhead'>;

/** D1 from the manifest, D2 from a fresh install, the build, and the entry point. */
export async function prepareAudit(opts: PrepareOptions, clock = new PhaseClock()): Promise<PreparedAudit> {
  const projectDir = await checkProjectDir(opts.dir);
  const { module, alsoPresent } = await detectEcosystem(projectDir, opts.ecosystem);
  const notes: string[] = [];
  if (alsoPresent.length) notes.push(`manifests of ${alsoPresent.join(', ')} are present too; audited as ${module.id} (use --ecosystem to choose)`);
  opts.progress(`${module.displayName} project: reading the manifest (D1)`);
  // Read once before any environment exists, so a broken manifest fails at once.
  let declared = await module.extractDeclared(projectDir);
  clock.lap('analysis');

  const work = await createWorkDir(projectDir);
  if (opts.keep) opts.progress(`work directory (kept): ${work.root}`);
  let sandbox: Sandbox | undefined;
  const close = async () => {
    await sandbox?.dispose();
    if (!opts.keep) await removeWorkDir(work);
  };
  try {
    sandbox = await asInfrastructure(createSandbox({ backend: opts.sandbox, language: module.id, hostWorkDir: work.root, progress: opts.progress }));
    const insideWork = sandbox.workDir;
    const ctx: AuditContext = {
      sandbox,
      projectDir: path.posix.join(insideWork, 'project'),
      envDir: path.posix.join(insideWork, 'env'),
      timeoutMs: opts.timeoutSec * 1000,
      tracer: opts.tracer,
      progress: opts.progress,
    };
    clock.lap('prepare');
    if (module.declaredInEnvironment) {
      declared = await module.declaredInEnvironment(projectDir, ctx);
      clock.lap('analysis');
    }
    notes.push(...declared.notes);

    opts.progress('installing into a fresh environment (D2)');
    const install: InstallResult = await module.install(ctx);
    clock.lap('install');
    if (module.build) {
      opts.progress('building');
      await module.build(ctx, install);
    }
    clock.lap('build');

    const choice = opts.run ? module.userRun(opts.run, ctx, install) : await entryPoint(module, ctx, install, work.project);
    const request: TraceRequest = { argv: choice.argv, cwd: ctx.projectDir, env: choice.env, timeoutMs: ctx.timeoutMs, network: false };
    return { module, projectDir, declared, sandbox, ctx, install, choice, notes, request, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** One audit: D1 from the manifest, D2 from a fresh install, D3 from a traced run, then gaps and metrics. */
export async function runAudit(opts: AuditOptions): Promise<AuditReport> {
  const clock = new PhaseClock();
  const phases = clock.phases;
  const p = await prepareAudit(opts, clock);
  const { module, declared, sandbox, choice, notes } = p;
  try {
    opts.progress(`tracing ${shellCommandLine(choice.argv)} (${choice.reason})`);
    const trace = await asInfrastructure(traceRun(sandbox, p.request, opts.tracer));
    clock.lap('run');
    phases.tracing = Math.max(0, phases.run - Math.round(trace.run.durationMs));
    phases.run -= phases.tracing;
    notes.push(...trace.notes);

    opts.progress('attributing traced files to packages (D3)');
    const attribution: AttributionResult = await module.attribute(trace.files, p.ctx, p.install);
    const d1 = nameSet(declared.declared);
    const d2 = nameSet(p.install.installed);
    const view = opts.tracedView?.[module.id];
    const tracedLayer = view ? attribution.alternatives?.[view] : attribution.traced;
    if (!tracedLayer) throw new EnvproofError(`the ${module.displayName} audit has no "${view}" view of D3`);
    if (view) notes.push(`D3 is the "${view}" view (the metrics use it)`);
    const d3 = nameSet(tracedLayer);
    const run: RunOutcome = { ...outcome(choice, trace.run), tracer: trace.tracer };
    if (run.timedOut) notes.push(`the program was stopped after ${opts.timeoutSec} s (--timeout); D3 holds what it loaded until then`);
    else if (!run.success) notes.push('the program did not exit with 0: D3 holds what it loaded before it failed');
    if (trace.run.spawnError) notes.push(`the program could not be started: ${trace.run.spawnError}`);
    clock.lap('analysis');
    if (opts.overhead) {
      opts.progress(`measuring the tracer's overhead: ${opts.overhead} untraced and ${opts.overhead} traced runs`);
      const measured = await measureOverhead(sandbox, p.request, opts.tracer, opts.overhead);
      run.overhead = measured.overhead;
      notes.push(...measured.notes);
      clock.lap('overhead');
    }
    const report: AuditReport = {
      schemaVersion: AUDIT_SCHEMA_VERSION,
      tool: { name: 'envproof', version: TOOL_VERSION },
      project: p.projectDir,
      ecosystem: module.id,
      manifest: declared.manifest,
      sandbox: {
        backend: sandbox.backend,
        ...(sandbox.isolationWarning ? { warning: sandbox.isolationWarning } : {}),
        ...(sandbox.baseline
          ? { baseline: { debian: sandbox.baseline.debian.length, packages: Object.fromEntries(Object.entries(sandbox.baseline.packages).map(([k, v]) => [k, v.length])) } }
          : {}),
      },
      layers: { declared: layer(declared.declared), installed: layer(p.install.installed), traced: layer(tracedLayer) },
      otherDeclared: Object.fromEntries(Object.entries(declared.other).map(([k, v]) => [k, layer(v)])),
      skipped: declared.skipped,
      alternatives: Object.fromEntries(Object.entries(attribution.alternatives ?? {}).map(([k, v]) => [k, layer(v)])),
      alternativeMetrics: Object.fromEntries(
        Object.entries(attribution.alternatives ?? {}).map(([k, v]) => [k, { gaps: gapSets(d1, d2, nameSet(v)), metrics: projectMetrics(d1, d2, nameSet(v)) }]),
      ),
      gaps: gapSets(d1, d2, d3),
      metrics: projectMetrics(d1, d2, d3),
      run,
      phasesMs: phases,
      evidence: attribution.evidence,
      install: { commands: p.install.commands, ...(p.install.details ? { details: p.install.details } : {}) },
      notes,
      ...(opts.keep ? { workDir: sandbox.hostWorkDir } : {}),
    };
    clock.lap('analysis');
    report.phasesMs = { ...phases };
    return report;
  } finally {
    await p.close();
  }
}
