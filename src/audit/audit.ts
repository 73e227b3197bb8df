import path from 'node:path';
import { nameSet, uniqueDependencies } from '../core/names.js';
import type { Dependency, EcosystemId } from '../core/types.js';
import { EnvproofError, InfrastructureError, NoEntryPointError } from '../core/errors.js';
import type { AttributionResult, AuditContext, EcosystemModule, InstallResult, RunChoice } from '../ecosystems/types.js';
import { readmeRunCommand } from './readme-run.js';
import { gapSets, paperInstalledIsDeclared, projectMetrics } from '../metrics/project.js';
import { createSandbox, type BackendChoice } from '../sandbox/index.js';
import type { Sandbox, SandboxBackend } from '../sandbox/types.js';
import { traceRun } from '../trace/index.js';
import { detectEcosystem } from './detect.js';
import { AUDIT_SCHEMA_VERSION, type AuditReport, type LayerEntry, type PhaseTimes, type RunOutcome } from './report.js';
import { checkProjectDir, createWorkDir, removeWorkDir } from './workspace.js';
import { buildComponents, pathShower } from './components.js';
import { buildFindings, type IgnoreLists } from './findings.js';
import { sourceLocation, type ManifestLocation } from '../ecosystems/outputs.js';
import type { DeclaredResult } from '../core/types.js';
import { TOOL_VERSION } from '../core/version.js';
import { shellCommandLine } from '../core/shell.js';

export interface AuditOptions {
  dir: string;
  ecosystem: EcosystemId | 'auto';
  /** Shell commands to trace instead of the ecosystem's default entry point; D3 is the union of their traces. */
  run?: string[];
  /** Per finding kind, package names reported but not counted as findings (the configuration's `ignore`). */
  ignore?: IgnoreLists;
  timeoutSec: number;
  keep: boolean;
  sandbox: BackendChoice;
  /**
   * Per ecosystem, which of its alternative views of D3 the metrics use instead of its default (e.g. java:
   * `opened`, the paper's jars-opened figures, instead of `loaded`).
   */
  tracedView?: Partial<Record<EcosystemId, string>>;
  progress(message: string): void;
  /** Told which backend the sandbox is, as soon as it exists (also when a later step fails). */
  onSandbox?(backend: SandboxBackend): void;
}

const OUTPUT_TAIL_BYTES = 4000;

function layer(deps: readonly Dependency[]): LayerEntry[] {
  return uniqueDependencies(deps).map(({ name, version, id }) => ({ name, ...(version ? { version } : {}), ...(id ? { id } : {}) }));
}

function outcome(choice: RunChoice, r: { exitCode: number | null; signal: string | null; timedOut: boolean; durationMs: number; stdout: string; stderr: string }): RunOutcome {
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

/** What the outputs add to the audit is never worth failing it for: a failure becomes a note. */
async function optional<T>(work: Promise<T> | undefined, what: string, notes: string[]): Promise<T | undefined> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof EnvproofError)) throw err;
    notes.push(`${what} could not be read: ${err.message}`);
    return undefined;
  }
}

/** Where each declaration is written: the ecosystem's editor knows; else the `file:line` of its source. */
async function declarationLocations(module: EcosystemModule, projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>> {
  if (module.manifestEditor) return module.manifestEditor.locate(projectDir, declared);
  const out: Record<string, ManifestLocation> = {};
  for (const d of declared.declared) {
    const at = sourceLocation(d.source);
    if (at && !out[d.name]) out[d.name] = at;
  }
  return out;
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
    sandbox = await asInfrastructure(createSandbox({ backend: opts.sandbox, language: module.id, hostWorkDir: work.root, progress: opts.progress }));
    opts.onSandbox?.(sandbox.backend);
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

    const choices = opts.run?.length
      ? opts.run.map((command) => module.userRun(command, ctx, install))
      : [await entryPoint(module, ctx, install, work.project)];
    const runs: RunOutcome[] = [];
    const tracedFiles = new Set<string>();
    for (const [i, choice] of choices.entries()) {
      opts.progress(`tracing ${shellCommandLine(choice.argv)} (${choice.reason})`);
      const trace = await asInfrastructure(traceRun(sandbox, {
        argv: choice.argv,
        cwd: ctx.projectDir,
        env: choice.env,
        timeoutMs: ctx.timeoutMs,
        network: false,
        logPath: path.posix.join(ctx.envDir, i === 0 ? 'trace.strace' : `trace-${i + 1}.strace`),
      }));
      // The program's own time is `run`; the rest of this step (reading the log, reaping leftovers) is `tracing`.
      const before = phases.run;
      lap('run');
      const tracing = Math.max(0, phases.run - before - Math.round(trace.run.durationMs));
      phases.tracing += tracing;
      phases.run -= tracing;
      for (const f of trace.files) tracedFiles.add(f);
      const run = outcome(choice, trace.run);
      runs.push(run);
      const which = choices.length > 1 ? `run ${i + 1} (${run.command})` : 'the program';
      if (run.timedOut) notes.push(`${which} was stopped after ${opts.timeoutSec} s (--timeout); D3 holds what it loaded until then`);
      else if (!run.success) notes.push(`${which} did not exit with 0: D3 holds what it loaded before it failed`);
      if (trace.run.spawnError) notes.push(`the tracer could not start: ${trace.run.spawnError}`);
    }
    if (choices.length > 1) notes.push(`D3 is the union of ${choices.length} traced commands`);

    opts.progress('attributing traced files to packages (D3)');
    const attribution: AttributionResult = await module.attribute(tracedFiles, ctx, install);
    const d1 = nameSet(declared.declared);
    const d2 = nameSet(install.installed);
    const view = opts.tracedView?.[module.id];
    const tracedLayer = view ? attribution.alternatives?.[view] : attribution.traced;
    if (!tracedLayer) throw new EnvproofError(`the ${module.displayName} audit has no "${view}" view of D3`);
    if (view) notes.push(`D3 is the "${view}" view (the metrics use it)`);
    const d3 = nameSet(tracedLayer);
    const gaps = gapSets(d1, d2, d3);

    opts.progress('reading package facts and static imports');
    const facts = await optional(module.componentFacts?.(ctx, install, attribution), 'package facts for the SBOM', notes);
    const staticImports = await optional(module.staticImports?.(ctx, install, attribution), 'static imports', notes);
    const components = buildComponents({
      declared: declared.declared,
      installed: install.installed,
      traced: tracedLayer,
      ...(facts ? { facts } : {}),
      showPath: pathShower(ctx.projectDir, ctx.envDir),
    });
    const isPinned = module.isPinned ?? ((d: Dependency) => d.version !== undefined);
    const findings = buildFindings({
      manifest: declared.manifest,
      declared: declared.declared,
      installed: install.installed,
      traced: tracedLayer,
      gaps,
      unpinned: [...new Set(declared.declared.filter((d) => !isPinned(d)).map((d) => d.name))],
      locations: await declarationLocations(module, projectDir, declared),
      ...(staticImports ? { staticImports } : {}),
      ...(opts.ignore ? { ignore: opts.ignore } : {}),
    });
    const report: AuditReport = {
      schemaVersion: AUDIT_SCHEMA_VERSION,
      tool: { name: 'envproof', version: TOOL_VERSION },
      project: projectDir,
      ecosystem: module.id,
      manifest: declared.manifest,
      sandbox: {
        backend: sandbox.backend,
        ...(sandbox.isolationWarning ? { warning: sandbox.isolationWarning } : {}),
        ...(sandbox.baseline
          ? { baseline: { debian: sandbox.baseline.debian.length, packages: Object.fromEntries(Object.entries(sandbox.baseline.packages).map(([k, v]) => [k, v.length])) } }
          : {}),
      },
      layers: { declared: layer(declared.declared), installed: layer(install.installed), traced: layer(tracedLayer) },
      otherDeclared: Object.fromEntries(Object.entries(declared.other).map(([k, v]) => [k, layer(v)])),
      skipped: declared.skipped,
      alternatives: Object.fromEntries(Object.entries(attribution.alternatives ?? {}).map(([k, v]) => [k, layer(v)])),
      alternativeMetrics: Object.fromEntries(
        Object.entries(attribution.alternatives ?? {}).map(([k, v]) => [k, { gaps: gapSets(d1, d2, nameSet(v)), metrics: projectMetrics(d1, d2, nameSet(v)) }]),
      ),
      ...(paperInstalledIsDeclared(module.id)
        ? { paperCompatible: { installed: layer(declared.declared), gaps: gapSets(d1, d1, d3), metrics: projectMetrics(d1, d1, d3) } }
        : {}),
      gaps,
      metrics: projectMetrics(d1, d2, d3),
      run: runs[0]!,
      runs,
      components,
      componentNotes: facts?.notes ?? [],
      ...(staticImports ? { staticImports: { method: staticImports.method, imports: staticImports.imports, notes: staticImports.notes } } : {}),
      findings,
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
