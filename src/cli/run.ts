import path from 'node:path';
import { Command, Option } from 'commander';
import { agentFromSpec } from '../agents/spec.js';
import { EnvproofError, UsageError } from '../core/errors.js';
import { killRunningProcessGroups } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { ecosystemIds, isEcosystemId } from '../ecosystems/index.js';
import { planRuns, runMatrix, type MatrixSummary } from '../protocol/matrix.js';
import { markReruns, parseRerun, RERUN_HELP } from '../protocol/rerun.js';
import type { ProtocolOptions, RunPlan } from '../protocol/run-one.js';
import { waitForRuns } from '../queue/client.js';
import { absoluteAgentSpec, absoluteSuiteSpec, jobLabel, type JobProtocolOptions, type RunJob } from '../queue/jobs.js';
import { hostWarning } from '../sandbox/host.js';
import { BACKEND_CHOICES, prepareEnvironment, resolveBackend, type BackendChoice } from '../sandbox/index.js';
import { DEFAULT_STORE, ResultsStore, STORE_OPTION_HELP } from '../store/store.js';
import type { TracerChoice } from '../trace/index.js';
import { tracerOption } from './tracer-option.js';
import { resolveSuite, selectTasks } from '../tasks/resolve.js';
import { loadCollection } from '../verify/contract/collection.js';
import { PROMPT_VARIANTS, type PromptVariant } from '../tasks/types.js';
import type { SetExitCode } from './exit-codes.js';
import { addEnvironmentOptions, environmentChoice, type EnvironmentFlags } from './environment-options.js';
import { javaAttributionOption, tracedViewOf, type JavaAttribution } from './java-attribution.js';
import { EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS } from './exit-codes.js';
import { runProgress, type RunProgress } from './run-progress.js';
import { positiveInt } from './number-options.js';
import { addQueueOptions, checkQueueFlags, enqueueThen, type QueueFlags } from './queue-options.js';
import { parseFactors } from './repro.js';
import { runKey } from '../protocol/run-one.js';
import { FACTORS } from '../repro/types.js';
import { reproduceFinalProjects, type FinalProjectSummary } from '../repro/final-projects.js';
import { DEFAULT_INSTALL_TIMEOUT_SEC } from '../ecosystems/step-limit.js';

function parseLanguages(value: string): EcosystemId[] {
  const langs = value === 'all' ? [...ecosystemIds()] : value.split(',').map((s) => s.trim());
  for (const l of langs) {
    if (!isEcosystemId(l)) throw new UsageError(`unknown language "${l}"`, `use ${ecosystemIds().join(', ')} or all`);
  }
  return langs;
}

/** The run summary, as text or JSON; `where` names the store (or, for a queued run, the queue). */
function printSummary(summary: MatrixSummary, where: Record<string, string>, json: boolean, repro?: { summary: FinalProjectSummary; k: number }): void {
  const c = summary.counts;
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...where, ...summary, ...(repro ? { repro: repro.summary } : {}) }, null, 2)}\n`);
    return;
  }
  const whereLine = where.store ? `store: ${where.store} (envproof report --store ${where.store})` : `queue: ${where.queue} (envproof report --store <the workers' store>)`;
  const reproLine = repro
    ? `reproducibility: ${repro.summary.reproduced} final projects re-run ${repro.k}x, ${repro.summary.alreadyDone} already done, ${repro.summary.errors.length} could not be re-run\n`
    : '';
  const notStarted = summary.total - Object.values(c).reduce((a, b) => a + b, 0);
  const stoppedPart = `${c.interrupted > 0 ? `, ${c.interrupted} interrupted` : ''}${notStarted > 0 ? `, ${notStarted} not started` : ''}`;
  const verdict = noneSucceeded(summary) ? 'no run succeeded\n' : '';
  process.stdout.write(
    `${summary.total} runs in ${(summary.durationMs / 1000).toFixed(1)} s: ${c.succeeded} succeeded, ${c.failed} failed, ${c.skipped} already done, ` +
      `${c['infrastructure-failed']} set aside (infrastructure), ${c['no-attempt']} without any attempt${stoppedPart}\n${verdict}${reproLine}${whereLine}\n`,
  );
}

/** Runs were run this time and not one of them succeeded: the agent or the setup is broken, whatever the cause. */
function noneSucceeded(summary: MatrixSummary): boolean {
  const c = summary.counts;
  return c.succeeded === 0 && c.failed > 0;
}

/** 1 when runs were set aside or none succeeded, else 0. */
export function runExitCode(summary: MatrixSummary): number {
  return summary.counts['infrastructure-failed'] > 0 || noneSucceeded(summary) ? EXIT_FINDINGS : EXIT_CLEAN;
}

/**
 * Ctrl-C or SIGTERM while the runs go on: `stop` is aborted (the agents' process groups are stopped, the attempts in
 * flight recorded as interrupted) and every command envproof runs is killed; a second signal quits at once.
 */
function stopOnSignals(stop: AbortController, progress: RunProgress): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    killRunningProcessGroups();
    if (stop.signal.aborted) process.exit(EXIT_ERROR);
    progress.note(`envproof: ${signal}: stopping; the attempts in flight are recorded as interrupted, and the same command resumes them (${signal} again quits at once)`);
    stop.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** The backend suite's evaluation options, when it runs (its files through `place`: absolute for a queue's workers). */
function backendOptions(o: { spec?: string; collection?: string; startupTimeout: number }, place: (file: string) => string): Pick<ProtocolOptions, 'backend'> {
  if (!o.spec) return {};
  return { backend: { spec: place(o.spec), ...(o.collection ? { collection: place(o.collection) } : {}), startupTimeoutSec: o.startupTimeout } };
}

/** One job per run, with what a worker elsewhere needs: specs with absolute paths, the protocol's options. */
function jobsOf(plans: readonly RunPlan[], specs: { agents: Map<string, string>; suite: string }, protocol: JobProtocolOptions): RunJob[] {
  return plans.map((p) => ({
    kind: 'run',
    agent: specs.agents.get(p.agent.name)!,
    agentName: p.agent.name,
    suite: specs.suite,
    taskId: p.task.id,
    language: p.language,
    trial: p.trial,
    variant: p.variant,
    protocol,
  }));
}

/** Enqueues the jobs and, with `--wait`, follows them to the end; returns the exit code. */
function runOnQueue(jobs: RunJob[], o: QueueFlags & { queue: string; json: boolean; quiet: boolean }): Promise<number> {
  return enqueueThen(o, jobs, async (queue, { completed, where }) => {
    const summary = await waitForRuns(queue, jobs, {
      alreadyDone: completed,
      pollMs: o.pollInterval * 1000,
      onEnd: o.quiet ? () => {} : (e, outcome) => process.stderr.write(`[${e.done}/${e.total}] ${jobLabel(e.job)}: ${outcome}${'reason' in e ? ` (${e.reason})` : ''}\n`),
    });
    printSummary(summary, { queue: where }, o.json);
    return runExitCode(summary);
  });
}

export function registerRun(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('run')
    .description('Run the evaluation protocol: an agent generates each project, envproof installs and runs it in a clean environment, feeds failures back for up to k repairs, and records every attempt')
    .requiredOption('--agent <spec...>', 'agent(s): scripted:<file>, replay:<dir>, cmd:<preset|template>, openai:model=..., anthropic:model=... (prefix with <name>@ to label)')
    .option('--suite <spec>', 'task suite: bundled, backend (needs --spec), envgap-prompts:<dir>, or a YAML/JSON file', 'bundled')
    .option('--spec <openapi.yml>', 'backend suite: the API contract the prompts carry and the evaluation checks')
    .option('--collection <file>', 'backend suite: a Postman v2.1 collection run with Newman beside envproof\'s suite')
    .option('--startup-timeout <seconds>', 'backend suite: how long the health check is polled', positiveInt('--startup-timeout', 1), 30)
    .option('--tasks <ids>', 'task ids: all, p_01,p_02 or p_01-p_05', 'all')
    .option('--languages <list>', `comma-separated languages or all (${ecosystemIds().join(', ')})`, 'all')
    .option('--trials <n>', 'trials per agent, task and language', positiveInt('--trials', 1), 1)
    .option('--repairs <k>', 'repair rounds after the first attempt', positiveInt('--repairs', 0), 10)
    .option('--jobs <n>', 'runs in parallel', positiveInt('--jobs', 1), 1)
    .addOption(new Option('--variant <v>', 'prompt variant').choices([...PROMPT_VARIANTS]).default('explicit'))
    .addOption(new Option('--sandbox <backend>', 'where projects are installed and run').choices([...BACKEND_CHOICES]).default('auto'))
    .addOption(tracerOption())
    .option('--timeout <seconds>', 'time limit of each program run', positiveInt('--timeout', 1), 120)
    .option('--install-timeout <seconds>', 'time limit of each install and build step', positiveInt('--install-timeout', 1), DEFAULT_INSTALL_TIMEOUT_SEC)
    .addOption(javaAttributionOption())
    .option('--agent-timeout <seconds>', 'time limit of each agent turn', positiveInt('--agent-timeout', 1), 1800)
    .option('--request-timeout <seconds>', 'time limit of each request of an HTTP agent (openai:, anthropic:); a request that runs out is retried as --retries says', positiveInt('--request-timeout', 1), 300)
    .option('--retries <n>', 'retries of an infrastructure failure (sandbox, registry, model API) before a run is set aside', positiveInt('--retries', 0), 2)
    .option('--retry-delay <seconds>', 'wait before the first retry (doubling after; longer when the server\'s Retry-After asks for longer)', positiveInt('--retry-delay', 0), 5)
    .option('--store <path|url>', STORE_OPTION_HELP, DEFAULT_STORE)
    .option('--rerun <which>', RERUN_HELP, parseRerun);
  addQueueOptions(command, 'one job per run')
    .option('--repro <k>', 'then re-run every successful final project k times, each in a fresh sandbox with a fresh install, and record its reproducibility (docs/repro.md)', positiveInt('--repro', 1))
    .option('--repro-vary <factors>', `what those re-runs vary: all, none, or a list of ${FACTORS.join(',')}`, 'all')
    .option('--repro-attribute', 'for a final project that does not reproduce, find the causes (a control run, then one factor at a time)')
    .option('--repro-trials <n>', 'with --repro-attribute: the most runs of the control and of each factor (envproof repro --trials)', positiveInt('--repro-trials', 1), 6)
    .option('--json', 'print the summary as JSON')
    .option('-q, --quiet', 'no progress lines');
  addEnvironmentOptions(command)
    .addHelpText(
      'after',
      '\nProgress goes to standard error: a line per attempt, retry and run ended, with the elapsed time and an ETA; on a terminal, also a live line per --jobs slot. Each attempt keeps the agent\'s output and the program\'s (docs/store.md).\nRe-running the same command resumes: finished runs are skipped and a run stopped half-way continues after its last recorded attempt; with --repro, final projects already re-run are skipped too.\nWith --queue, the workers (envproof worker --store ...) record the runs; enqueuing the same runs again adds nothing.\nExit codes: 0 every run ended (or, with --queue and no --wait, was enqueued), 1 some runs were set aside after infrastructure failures, or runs were run and none succeeded (or, with --repro, some final projects could not be re-run), 2 error (also a refused credential, which stops the run at once, and Ctrl-C/SIGTERM, after which the same command resumes).',
    )
    .action(async (o: EnvironmentFlags & { agent: string[]; suite: string; spec?: string; collection?: string; startupTimeout: number; tasks: string; languages: string; trials: number; repairs: number; jobs: number; variant: PromptVariant; sandbox: BackendChoice; tracer: TracerChoice; timeout: number; installTimeout: number; javaAttribution: JavaAttribution; agentTimeout: number; requestTimeout: number; rerun?: string; retries: number; retryDelay: number; store: string; queue?: string; wait?: boolean; pollInterval: number; repro?: number; reproVary: string; reproAttribute?: boolean; reproTrials: number; json?: boolean; quiet?: boolean }, command: Command) => {
      const agents = o.agent.map((spec) => agentFromSpec(spec));
      const names = agents.map((a) => a.name);
      if (new Set(names).size !== names.length) throw new UsageError(`two agents share the name ${names.find((n, i) => names.indexOf(n) !== i)}`, 'label them: <name>@<spec>');
      const suite = resolveSuite(o.suite, { contract: o.spec });
      if (o.collection) loadCollection(o.collection);
      const tasks = selectTasks(suite, o.tasks);
      const languages = parseLanguages(o.languages);
      const plans = planRuns({ agents, suite, tasks, languages, trials: o.trials, variant: o.variant });
      const reproVary = parseFactors(o.reproVary, '--repro-vary');
      const environment = environmentChoice(o);
      checkQueueFlags(o, command, ['store', 'jobs']);
      if (o.queue) {
        const protocol: JobProtocolOptions = {
          repairs: o.repairs, sandbox: o.sandbox, environment, tracer: o.tracer, runTimeoutSec: o.timeout, installTimeoutSec: o.installTimeout, agentTimeoutSec: o.agentTimeout, requestTimeoutSec: o.requestTimeout,
          tracedView: tracedViewOf(o.javaAttribution), infraRetries: o.retries, retryDelaySec: o.retryDelay,
          ...backendOptions(o, path.resolve),
        };
        if (o.repro) throw new UsageError('--repro runs where the store is, not on the queue', 'run envproof run --repro <k> against the workers\' store once the queue has drained');
        if (o.rerun) throw new UsageError('--rerun redoes runs where the store is, not on the queue', 'run envproof run --rerun <which> against the workers\' store without --queue');
        const specs = { agents: new Map(agents.map((a, i) => [a.name, absoluteAgentSpec(o.agent[i]!)])), suite: absoluteSuiteSpec(o.suite) };
        setExitCode(await runOnQueue(jobsOf(plans, specs, protocol), { ...o, queue: o.queue, json: o.json === true, quiet: o.quiet === true }));
        return;
      }
      // Generated code never runs unprotected by accident: `auto` without bwrap is refused here (exit 2).
      const { backend } = resolveBackend(o.sandbox);
      const note = o.quiet ? () => {} : (m: string) => process.stderr.write(`envproof: ${m}\n`);
      if (backend === 'host') process.stderr.write(`envproof: warning: ${hostWarning()}\n`);
      // Environments are built before the first run (once, not in each parallel job), so that what the user
      // asked for and cannot be had (a package name Debian does not have, the ubuntu base without a registry) is
      // an error here rather than a failure of every run.
      if (backend === 'bwrap' || environment.systemPackages?.length || environment.imageBase === 'ubuntu') {
        for (const language of languages) await prepareEnvironment(backend, language, environment, note);
      }
      const store = await ResultsStore.open(o.store);
      const progress = runProgress(o.quiet ? { write: () => true } : process.stderr, Math.min(o.jobs, plans.length));
      const stop = new AbortController();
      const unhook = stopOnSignals(stop, progress);
      try {
        await store.replaceRuns([], { source: 'envproof', tasks: tasks.map(({ id, title, domain, complexity }) => ({ id, title, domain, complexity })) });
        const chosen = o.rerun ? await markReruns(plans, store, o.rerun) : plans;
        if (o.rerun) progress.note(`envproof: --rerun ${o.rerun}: ${chosen.filter((p) => p.fresh).length} of ${plans.length} runs are done again from scratch`);
        const summary = await runMatrix(chosen, store, {
          jobs: o.jobs,
          repairs: o.repairs,
          sandbox: backend,
          environment,
          tracer: o.tracer,
          runTimeoutSec: o.timeout,
          installTimeoutSec: o.installTimeout,
          tracedView: tracedViewOf(o.javaAttribution),
          agentTimeoutSec: o.agentTimeout,
          requestTimeoutSec: o.requestTimeout,
          infraRetries: o.retries,
          retryDelaySec: o.retryDelay,
          ...backendOptions(o, (file) => file),
          signal: stop.signal,
          onProgress: (e) => progress.event(e),
        }).finally(() => progress.close());
        if (stop.signal.aborted) {
          printSummary(summary, { store: store.location }, o.json === true);
          throw new EnvproofError(`stopped by ${String(stop.signal.reason)}: ${summary.counts.interrupted} runs interrupted`, 'run the same command again: finished runs are skipped, interrupted ones resume where they stopped');
        }
        // Backend tasks serve rather than end: their suite evaluates them, there is no program run to repeat.
        const repro = o.repro
          ? await reproduceFinalProjects(plans.filter((p) => !p.task.backend).map(runKey), store, {
              k: o.repro,
              vary: reproVary,
              attribute: Boolean(o.reproAttribute),
              trials: o.reproTrials,
              backend,
              systemPackages: environment.systemPackages ?? [],
              timeoutSec: o.timeout,
              progress: note,
            })
          : undefined;
        printSummary(summary, { store: store.location }, o.json === true, repro && o.repro ? { summary: repro, k: o.repro } : undefined);
        setExitCode(Math.max(runExitCode(summary), (repro?.errors.length ?? 0) > 0 ? EXIT_FINDINGS : EXIT_CLEAN));
      } finally {
        unhook();
        // Nothing envproof started outlives it, whatever ended the runs.
        killRunningProcessGroups();
        await store.close();
      }
    });
}
