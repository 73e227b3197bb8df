/** `envproof repro` for one project: a reference, k fresh re-runs under variation, attribution, the shim. */
import { EnvproofError, UsageError } from '../core/errors.js';
import { TOOL_VERSION } from '../core/version.js';
import { installTimeoutMs } from '../audit/audit.js';
import { checkProjectDir } from '../audit/workspace.js';
import { resolveBackend, type BackendChoice } from '../sandbox/index.js';
import type { TracerChoice } from '../trace/index.js';
import { median, quantile, wilsonInterval } from '../metrics/stats.js';
import { attribute, DEFAULT_ATTRIBUTION } from './attribute.js';
import { differences, reproductionRate, verdictOf } from './compare.js';
import { randomInt } from 'node:crypto';
import { DEFAULT_LOCALE, DEFAULT_TIMEZONE, drawnSeeds, SHIM_FACTORS, shapeOf, type FactorContext, type RunShape } from './factors.js';
import type { DatedInstall, EnvironmentFacts } from '../ecosystems/repro-facts.js';
import { freshRun, type RunSetup } from './fresh-run.js';
import { InstallTemplates } from './install-template.js';
import { detectKind, type ProjectKind } from './kinds.js';
import { detectRunner } from './outcomes/runners.js';
import { readReferenceFile } from './reference.js';
import { checkRuntime } from './runtime-check.js';
import { missingToolError, testToolNote, testToolPlan } from './test-tools.js';
import { FACTORS, type FactorId, type Outcome, type Reference, type ReferenceEnvironment, type ReproReport, type RunRecord, type ShimSummary } from './types.js';

export interface ReproOptions {
  dir: string;
  /** The test command; absent: the project is built and its entry point run, as the audit would (`run --repro`). */
  command?: string;
  k: number;
  vary: readonly FactorId[];
  attribute: boolean;
  /** With `attribute`: try every factor (--attribute all) rather than stop at the first that is a cause. */
  attributeAll?: boolean;
  /** With `attribute`: the most runs of each attribution arm (the control, each factor); default 6. */
  trials?: number;
  shim: boolean;
  /** A reference outcome recorded earlier (file). */
  referenceFile?: string;
  /** A reference outcome recorded earlier, given directly (the corpus's); `path` says where it came from. */
  reference?: { recordedAt: Date; outcome: Outcome; path: string; environment?: ReferenceEnvironment };
  /** Without a reference file: the date the reference stands for; its run resolves dependencies as of then. */
  asOf?: Date;
  ecosystem: string;
  backend: BackendChoice;
  systemPackages?: readonly string[];
  timeoutSec: number;
  /** Limit of each install and build step (default DEFAULT_INSTALL_TIMEOUT_SEC). */
  installTimeoutSec?: number;
  /** Trace every run and compare what it loaded (D3) with the reference run's; absent: untraced. */
  tracer?: TracerChoice;
  progress(message: string): void;
  /** Told of each finished run (the corpus records them as they come). */
  onRun?(run: RunRecord): Promise<void>;
  /** Every run installs fresh (--fresh-installs) instead of sharing one install among the runs that only change the run's environment. */
  freshInstalls?: boolean;
  /** Commands that install the test tools after the project's install (--install); absent: the ones the ecosystem detects. */
  install?: readonly string[];
  /** Whether the test tools the ecosystem detects are installed (default true; --no-test-deps). */
  testDependencies?: boolean;
  /** Draws the seeds of the factors random by default (tests give their own); absent: a random 31-bit seed. */
  drawSeed?: () => number;
}

export const REPRO_SCHEMA_VERSION = 1;

/** The ecosystem's dated installs (pip's dated index), one per date, started when a run first needs one. */
class DatedInstalls {
  private readonly open = new Map<string, Promise<DatedInstall>>();
  constructor(private readonly kind: ProjectKind) {}
  get = (date: string): Promise<DatedInstall> => {
    const resolution = this.kind.datedResolution;
    if (!resolution.supported) throw new Error(`${this.kind.id} has no dated resolution`);
    let p = this.open.get(date);
    if (!p) this.open.set(date, (p = resolution.start(new Date(date))));
    return p;
  };
  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map(async (p) => (await p).close()));
  }
}

const PLATFORM = `${process.platform}-${process.arch}`;

/** The factors a reference file recorded at another value than the default environment has (which the re-runs keep unless varied). */
function awayFromDefault(env: ReferenceEnvironment | undefined): FactorId[] {
  return [...(env?.timezone !== undefined && env.timezone !== DEFAULT_TIMEZONE ? (['timezone'] as const) : []), ...(env?.locale !== undefined && env.locale !== DEFAULT_LOCALE ? (['locale'] as const) : [])];
}

function outcomeLine(o: Outcome): string {
  const tests = o.tests ? Object.values(o.tests) : [];
  const failed = tests.filter((t) => t === 'failed').length;
  return `${o.status}${tests.length ? ` (${tests.length - failed}/${tests.length} tests passed)` : ''}`;
}

/** How a run's loaded set (`name version` entries) differs from the reference run's: changed versions, packages only one loaded. */
export function loadedDifferences(reference: readonly string[], run: readonly string[]): string[] {
  const byName = (entries: readonly string[]) => new Map(entries.map((e): [string, string] => [e.split(' ')[0]!, e.split(' ')[1] ?? '']));
  const a = byName(reference);
  const b = byName(run);
  const out: string[] = [];
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const [was, now] = [a.get(name), b.get(name)];
    if (now === undefined) out.push(`${name}${was ? ` ${was}` : ''} no longer loaded`);
    else if (was === undefined) out.push(`${name}${now ? ` ${now}` : ''} loaded too`);
    else if (was !== now) out.push(`${name} ${was || '?'} → ${now || '?'}`);
  }
  return out;
}

/** A run of a runner envproof reads that left no report, or reported no test: it tested nothing, which is no outcome to compare. */
function testedNothing(o: Outcome): boolean {
  return o.runner !== undefined && (o.tests === undefined || Object.keys(o.tests).length === 0);
}

function harnessFailure(o: Outcome, command: string | undefined): EnvproofError {
  return new EnvproofError(
    `the test command tested nothing, so there is no outcome to reproduce: ${o.note ?? `${o.runner} reported no tests`}`,
    `check that ${command ?? 'the command'} runs the project's tests in a fresh environment (its runner, its Node/Python/Go version, the test files it collects)`,
  );
}

export async function runRepro(opts: ReproOptions): Promise<ReproReport> {
  if (opts.command !== undefined && !opts.command.trim()) throw new UsageError('--cmd is empty', 'give the test command, e.g. --cmd "pytest -q"');
  if (!Number.isInteger(opts.k) || opts.k < 1) throw new UsageError(`--k must be a whole number of runs, at least 1 (not ${opts.k})`);
  if (opts.trials !== undefined && (!Number.isInteger(opts.trials) || opts.trials < 1)) throw new UsageError(`--trials must be a whole number of runs, at least 1 (not ${opts.trials})`);
  const dir = await checkProjectDir(opts.dir, 'to reproduce');
  const kind = await detectKind(dir, opts.ecosystem);
  await checkRuntime(kind, dir, resolveBackend(opts.backend).backend, opts.progress);
  const runner = opts.command === undefined ? undefined : await detectRunner(opts.command, dir);
  const fileRef = opts.reference ?? (opts.referenceFile ? { ...(await readReferenceFile(opts.referenceFile)), path: opts.referenceFile } : undefined);
  const referenceDate = fileRef?.recordedAt ?? opts.asOf ?? new Date();
  const now = new Date();
  const notes: string[] = [];
  if (opts.command === undefined) notes.push('the project\'s entry point was run, as the audit runs it: outcomes compare the exit status only');
  else if (!runner) notes.push('the command\'s test runner is not one envproof reads (pytest, Jest, Vitest, node --test, go test, Maven Surefire, ctest): outcomes compare the exit status only');
  if (!opts.freshInstalls && kind.installNotShared !== undefined) notes.push(`every run installed fresh: ${kind.installNotShared}`);
  const tools = opts.command === undefined ? { commands: [], sources: [], detected: [] } : await testToolPlan(kind, dir, opts.install ?? [], opts.testDependencies !== false);
  const toolNote = testToolNote(tools);
  if (toolNote) notes.push(toolNote);
  const indexes = new DatedInstalls(kind);
  const installs = opts.freshInstalls ? undefined : new InstallTemplates<EnvironmentFacts>();
  const setup: RunSetup = {
    projectDir: dir,
    kind,
    ...(opts.command !== undefined ? { command: opts.command } : {}),
    ...(runner ? { runner } : {}),
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
    backend: opts.backend,
    systemPackages: opts.systemPackages ?? [],
    testInstalls: tools.commands,
    timeoutMs: opts.timeoutSec * 1000,
    installTimeoutMs: installTimeoutMs(opts),
    progress: opts.progress,
    datedInstall: indexes.get,
    ...(installs ? { installs } : {}),
  };
  const drawSeed = opts.drawSeed ?? (() => randomInt(1, 2 ** 31));
  // A run's shape is decided twice (before its install, then with what the install found): both times with the same draws.
  let draw = drawSeed;
  // A reference file's recorded environment is what the control and the shim replay; a first run's is the default one.
  const referenceEnvironment = fileRef?.environment;
  let referenceSeeds: Partial<Record<FactorId, number>> = { ...referenceEnvironment?.seeds };
  if (referenceEnvironment?.platform && referenceEnvironment.platform !== PLATFORM) notes.push(`the reference ran on ${referenceEnvironment.platform}, these runs on ${PLATFORM}: a difference repro cannot vary`);
  const context = (index: number, facts: EnvironmentFacts, triedSeeds: FactorContext['triedSeeds'] = {}, atDefault: readonly FactorId[] = []): FactorContext => ({
    index,
    referenceDate,
    now,
    ...(runner && kind.testOrder[runner.runner] ? { order: kind.testOrder[runner.runner] } : {}),
    facts,
    datedResolution: kind.datedResolution,
    ...(kind.fakesMonotonicClock ? { fakesMonotonicClock: true } : {}),
    randomByDefault: kind.randomByDefault,
    draw,
    referenceSeeds,
    triedSeeds,
    ...(referenceEnvironment ? { referenceEnvironment } : {}),
    atDefault,
  });
  let reference: Reference | undefined;
  let referenceLoaded: string[] | undefined;
  let command = opts.command;
  const record = async (role: RunRecord['role'], label: string, decide: (facts: EnvironmentFacts) => RunShape): Promise<RunRecord> => {
    opts.progress(`${label}: install and run`);
    const seeds: number[] = [];
    const r = await freshRun(setup, (facts) => {
      let j = 0;
      draw = () => (seeds[j] ??= drawSeed(), seeds[j++]!);
      return decide(facts);
    });
    command ??= r.command;
    const diff = reference ? differences(reference.outcome, r.outcome) : [];
    const run: RunRecord = { role, variation: r.shape.settings, outcome: r.outcome, matches: diff.length === 0, differences: diff, durationMs: r.durationMs, installMs: r.installMs, install: r.install };
    if (r.traced) {
      run.traced = r.traced;
      if (referenceLoaded) run.loadedDifferences = loadedDifferences(referenceLoaded, r.traced.loaded);
    }
    opts.progress(`${label}: ${outcomeLine(r.outcome)}${reference ? (run.matches ? ', matches the reference' : `, differs (${diff.slice(0, 3).join('; ')})`) : ''}`);
    await opts.onRun?.(run);
    return run;
  };

  try {
    const runs: RunRecord[] = [];
    if (fileRef) {
      reference = { source: 'file', path: fileRef.path, recordedAt: referenceDate.toISOString(), outcome: fileRef.outcome, ...(referenceEnvironment ? { environment: referenceEnvironment } : {}) };
    } else {
      // The default environment (its random factors drawn and recorded); with --as-of, dependencies as they resolved then.
      const refRun = await record('reference', 'reference run', (facts) => shapeOf([], opts.asOf ? ['dependency-drift'] : [], context(0, facts)));
      referenceSeeds = drawnSeeds(refRun.variation);
      const missing = missingToolError(refRun.outcome, command, tools, kind.missingTool);
      if (missing) throw missing;
      // Its install (now the shared live one) resolved the dependencies as of the reference date.
      if (!opts.asOf && refRun.install === 'fresh' && refRun.outcome.status !== 'install-failed') setup.liveInstalledAt = referenceDate.toISOString();
      if (refRun.outcome.status === 'not-started') {
        throw new EnvproofError(`the test command never started in the sandbox (${refRun.outcome.note ?? 'no program ran'}): ${command ?? 'the entry point'}`, 'check the command given with --cmd; inside the environment, python, node, go etc. are the project\'s own');
      }
      if (testedNothing(refRun.outcome)) throw harnessFailure(refRun.outcome, command);
      const environment: ReferenceEnvironment = { timezone: DEFAULT_TIMEZONE, locale: DEFAULT_LOCALE, date: now.toISOString(), seeds: referenceSeeds, platform: PLATFORM };
      reference = { source: 'first-run', recordedAt: referenceDate.toISOString(), outcome: refRun.outcome, environment };
      referenceLoaded = refRun.traced?.loaded;
      runs.push(refRun);
    }
    const reruns: RunRecord[] = [];
    for (let i = 0; i < opts.k; i++) reruns.push(await record('rerun', `re-run ${i + 1}/${opts.k}`, (facts) => shapeOf(opts.vary, [], context(i, facts))));
    if (fileRef) {
      // Against a reference file the re-runs are the first runs: a tool they all lack is said as for a reference run.
      const missing = reruns.map((r) => missingToolError(r.outcome, command, tools, kind.missingTool));
      if (missing.every(Boolean)) throw missing[0]!;
    }
    if (fileRef && reruns.every((r) => testedNothing(r.outcome))) throw harnessFailure(reruns[0]!.outcome, command);
    if (fileRef && reruns.every((r) => r.outcome.status === 'not-started')) {
      throw new EnvproofError(`the test command never started in the sandbox (${reruns[0]!.outcome.note ?? 'no program ran'}): ${command ?? 'the entry point'}`, 'check the command given with --cmd');
    }
    runs.push(...reruns);
    const rate = reproductionRate(reruns.map((r) => r.matches));
    const verdict = verdictOf(rate);
    const report: ReproReport = {
      schemaVersion: REPRO_SCHEMA_VERSION,
      tool: { name: 'envproof', version: TOOL_VERSION },
      project: dir,
      command: command ?? '(the entry point)',
      kind: kind.id,
      sandbox: resolveBackend(opts.backend).backend,
      verdict,
      rate,
      rateInterval: wilsonInterval(reruns.filter((r) => r.matches).length, reruns.length)!,
      k: opts.k,
      vary: [...opts.vary],
      ...(opts.tracer ? { tracer: opts.tracer } : {}),
      reference,
      runs,
      notes,
    };
    if (opts.attribute) {
      const first = reruns.findIndex((r) => !r.matches);
      if (first < 0) report.causes = [];
      else {
        const pinAllBut = (varied: readonly FactorId[]) => FACTORS.filter((f) => !varied.includes(f));
        // A seed the differing re-run drew other than the reference run's is tried like any varied factor (the pinned ones
        // replay the reference's); against a reference file, whose seeds are not known, only when --vary names it.
        const tried = drawnSeeds(reruns[first]!.variation);
        // So is a factor the reference file recorded away from the default environment the re-runs kept: tried at the default.
        const atDefault = awayFromDefault(referenceEnvironment).filter((f) => !opts.vary.includes(f));
        const candidates = attributionOrder([...opts.vary, ...FACTORS.filter((f) => !opts.vary.includes(f) && referenceSeeds[f] !== undefined && tried[f] !== undefined && tried[f] !== referenceSeeds[f]), ...atDefault], reruns[first]!);
        const a = await attribute(
          candidates,
          first,
          (varied, role, index) => record(role, `attribution (${varied.length ? `varying ${varied.join(', ')}` : 'control, all pinned'})`, (facts) => shapeOf(varied, pinAllBut(varied), context(index, facts, tried, atDefault))),
          { ...DEFAULT_ATTRIBUTION, maxTrials: opts.trials ?? DEFAULT_ATTRIBUTION.maxTrials, stopAtFirstCause: !opts.attributeAll },
        );
        report.causes = a.causes;
        report.attributionRuns = a.runs;
        report.attribution = { mode: opts.attributeAll ? 'all' : 'first-cause', order: candidates, notTried: a.notTried };
      }
    }
    if (opts.shim) {
      report.shim = await shimRuns(
        opts.k,
        (i) => record('default', `default-environment run ${i + 1}/${opts.k} (the shim's overhead)`, (facts) => shapeOf([], [], context(i, facts))),
        (i) => record('shim', `shim run ${i + 1}/${opts.k}`, (facts) => shapeOf(opts.vary.filter((f) => !SHIM_FACTORS.includes(f)), SHIM_FACTORS, context(i, facts))),
      );
    }
    return report;
  } finally {
    await indexes.close();
    await installs?.dispose();
  }
}

/**
 * The order attribution tries the candidates in: first those the differing re-run applied (it can only differ by
 * what it changed), then those it could not apply (tried in case attribution can, as with a seed drawn anew).
 */
export function attributionOrder(candidates: readonly FactorId[], differing: RunRecord): FactorId[] {
  const applied = (f: FactorId) => differing.variation.some((s) => s.factor === f && s.applied && s.mode !== 'pinned');
  return [...candidates.filter(applied), ...candidates.filter((f) => !applied(f))];
}

/**
 * The shim runs, each just after a run in the default environment: the overhead is the median of the pairwise ratios
 * of their test-command times, so that both sides of a pair see the machine in the same state.
 */
export async function shimRuns(k: number, defaultRun: (i: number) => Promise<RunRecord>, shimRun: (i: number) => Promise<RunRecord>): Promise<ShimSummary> {
  const runs: RunRecord[] = [];
  const defaultRuns: RunRecord[] = [];
  for (let i = 0; i < k; i++) {
    defaultRuns.push(await defaultRun(i));
    runs.push(await shimRun(i));
  }
  const rate = reproductionRate(runs.map((r) => r.matches));
  const ratios = runs.flatMap((r, i) => (defaultRuns[i]!.durationMs > 0 && r.durationMs > 0 ? [r.durationMs / defaultRuns[i]!.durationMs] : []));
  const pins = runs[0]?.variation.filter((s) => s.mode === 'pinned').map((s) => (s.applied ? s.value : `${s.factor}: not pinned (${s.note})`)) ?? [];
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const sorted = [...ratios].sort((a, b) => a - b);
  const spread = sorted.length ? { min: round(sorted[0]!), q1: round(quantile(sorted, 0.25)), q3: round(quantile(sorted, 0.75)), max: round(sorted.at(-1)!), pairs: sorted.length } : undefined;
  const m = median(ratios);
  return {
    verdict: verdictOf(rate),
    rate,
    rateInterval: wilsonInterval(runs.filter((r) => r.matches).length, runs.length)!,
    runs,
    defaultRuns,
    overheadRatio: m === null ? null : round(m),
    ...(spread ? { overheadSpread: spread } : {}),
    pins,
  };
}

