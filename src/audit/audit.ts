import path from 'node:path';
import { nameSet, uniqueDependencies } from '../core/names.js';
import type { Dependency, EcosystemId } from '../core/types.js';
import { EnvproofError, InfrastructureError, NoEntryPointError, UsageError } from '../core/errors.js';
import type { AttributionResult, AuditContext, EcosystemModule, InstallResult, RunChoice } from '../ecosystems/types.js';
import { readmeRunCommand } from './readme-run.js';
import { gapSets, projectMetrics } from '../metrics/project.js';
import { createSandbox, type BackendChoice, type EnvironmentChoice } from '../sandbox/index.js';
import type { ExecIsolation, ExecResult, Sandbox } from '../sandbox/types.js';
import { traceRun } from '../trace/index.js';
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
  /** The environment beyond the backend: extra Debian packages, the container base image. */
  environment?: EnvironmentChoice;
  /** With `--sandbox auto`, run on the host (with a warning) where bubblewrap cannot run, instead of refusing. */
  allowHostFallback?: boolean;
  /**
   * Per ecosystem, which of its alternative views of D3 the metrics use instead of its default (e.g. java:
   * `opened`, the paper's jars-opened figures, instead of `loaded`).
   */
  tracedView?: Partial<Record<EcosystemId, string>>;
  /**
   * For programs that serve rather than end (a backend under test): called once the traced program has started;
   * the program is stopped when the returned promise settles (or ends by itself before). `ended` resolves when
   * the program has ended, whoever stopped it.
   */
  whileRunning?: (program: { ended: Promise<void> }) => Promise<void>;
  /** How much of the program's output the report keeps (default 4000 bytes). */
  outputTailBytes?: number;
  progress(message: string): void;
  /** Warnings for the terminal that `-q` does not silence (default: progress). */
  warn?(message: string): void;
}

const OUTPUT_TAIL_BYTES = 4000;

function layer(deps: readonly Dependency[]): LayerEntry[] {
  return uniqueDependencies(deps).map(({ name, version, id }) => ({ name, ...(version ? { version } : {}), ...(id ? { id } : {}) }));
}

/** Where a sandbox did not say what it isolated, nothing is claimed. */
const UNKNOWN_ISOLATION: ExecIsolation = { networkOff: false, filesystemConfined: false, ownProcessTree: false, shortfall: 'the sandbox did not report what it isolated' };

function outcome(choice: RunChoice, r: ExecResult, tailBytes: number): RunOutcome {
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
    outputTail: output.length > tailBytes ? output.slice(-tailBytes) : output,
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

/** One audit: D1 from the manifest, D2 from a fresh install, D3 from a traced run, then gaps and metrics. */
export async function runAudit(opts: AuditOptions): Promise<AuditReport> {
  const phases: PhaseTimes = { prepare: 0, install: 0, build: 0, run: 0, tracing: 0, analysis: 0 };
  let t = performance.now();
  const lap = (phase: keyof PhaseTimes) => {
    const now = performance.now();
    phases[phase] += Math.round(now - t);
    t = now;
  };

  const projectDir = await checkProjectDir(opts.dir);
  const { module, alsoPresent } = await detectEcosystem(projectDir, opts.ecosystem);
  const notes: string[] = [];
  if (alsoPresent.length) notes.push(`manifests of ${alsoPresent.join(', ')} are present too; audited as ${module.id} (use --ecosystem to choose)`);
  opts.progress(`${module.displayName} project: reading the manifest (D1)`);
  // Read once before any environment exists, so a broken manifest fails at once.
  let declared = await module.extractDeclared(projectDir);
  lap('analysis');

  const work = await createWorkDir(projectDir);
  if (opts.keep) opts.progress(`work directory (kept): ${work.root}`);
  let sandbox: Sandbox | undefined;
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
    const insideWork = sandbox.workDir;
    const ctx: AuditContext = {
      sandbox,
      projectDir: path.posix.join(insideWork, 'project'),
      envDir: path.posix.join(insideWork, 'env'),
      timeoutMs: opts.timeoutSec * 1000,
      progress: opts.progress,
    };
    lap('prepare');
    if (module.declaredInEnvironment) {
      declared = await module.declaredInEnvironment(projectDir, ctx);
      lap('analysis');
    }
    notes.push(...declared.notes);

    opts.progress('installing into a fresh environment (D2)');
    const install: InstallResult = await module.install(ctx);
    lap('install');
    if (module.build) {
      opts.progress('building');
      await module.build(ctx, install);
    }
    lap('build');

    const choice = opts.run ? module.userRun(opts.run, ctx, install) : await entryPoint(module, ctx, install, work.project);
    opts.progress(`tracing ${shellCommandLine(choice.argv)} (${choice.reason})`);
    const stop = new AbortController();
    const tracing = traceRun(sandbox, {
      argv: choice.argv,
      cwd: ctx.projectDir,
      env: choice.env,
      timeoutMs: ctx.timeoutMs,
      network: false,
      logPath: path.posix.join(ctx.envDir, 'trace.strace'),
      signal: stop.signal,
    });
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
    lap('run');
    phases.tracing = Math.max(0, phases.run - Math.round(trace.run.durationMs));
    phases.run -= phases.tracing;

    opts.progress('attributing traced files to packages (D3)');
    const attribution: AttributionResult = await module.attribute(trace.files, ctx, install);
    const d1 = nameSet(declared.declared);
    const d2 = nameSet(install.installed);
    const view = opts.tracedView?.[module.id];
    const tracedLayer = view ? attribution.alternatives?.[view] : attribution.traced;
    if (!tracedLayer) throw new EnvproofError(`the ${module.displayName} audit has no "${view}" view of D3`);
    if (view) notes.push(`D3 is the "${view}" view (the metrics use it)`);
    const d3 = nameSet(tracedLayer);
    const run = outcome(choice, trace.run, opts.outputTailBytes ?? OUTPUT_TAIL_BYTES);
    if (opts.whileRunning) notes.push('the program served while envproof exercised it, then was stopped');
    else if (run.timedOut) notes.push(`the program was stopped after ${opts.timeoutSec} s (--timeout); D3 holds what it loaded until then`);
    else if (!run.success) notes.push('the program did not exit with 0: D3 holds what it loaded before it failed');
    if (trace.run.spawnError) notes.push(`the tracer could not start: ${trace.run.spawnError}`);
    if (run.isolation.shortfall) notes.push(`the traced run did not get the isolation it asked for: ${run.isolation.shortfall}`);
    const report: AuditReport = {
      schemaVersion: AUDIT_SCHEMA_VERSION,
      tool: { name: 'envproof', version: TOOL_VERSION },
      project: projectDir,
      ecosystem: module.id,
      manifest: declared.manifest,
      sandbox: {
        backend: sandbox.backend,
        requested: opts.sandbox,
        ...(sandbox.isolationWarning ? { warning: sandbox.isolationWarning } : {}),
        ...(sandbox.baseline
          ? { baseline: { debian: sandbox.baseline.debian.length, packages: Object.fromEntries(Object.entries(sandbox.baseline.packages).map(([k, v]) => [k, v.length])) } }
          : {}),
      },
      layers: { declared: layer(declared.declared), installed: layer(install.installed), traced: layer(tracedLayer) },
      systemDependencies: sandbox.systemPackages.map(({ name, version }) => ({ name, version })),
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
      install: { commands: install.commands, ...(install.details ? { details: install.details } : {}) },
      notes,
      ...(opts.keep ? { workDir: work.root } : {}),
    };
    lap('analysis');
    report.phasesMs = { ...phases };
    return report;
  } finally {
    await sandbox?.dispose();
    if (!opts.keep) await removeWorkDir(work);
  }
}
