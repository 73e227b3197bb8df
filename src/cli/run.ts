import { Command, Option } from 'commander';
import { agentFromSpec } from '../agents/spec.js';
import { UsageError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { ecosystemIds, isEcosystemId } from '../ecosystems/index.js';
import { planRuns, runMatrix, type ProgressEvent } from '../protocol/matrix.js';
import { hostWarning } from '../sandbox/host.js';
import { BACKEND_CHOICES, prepareEnvironment, resolveBackend, type BackendChoice } from '../sandbox/index.js';
import type { TracerChoice } from '../trace/index.js';
import { tracerOption } from './tracer-option.js';
import { DEFAULT_STORE, ResultsStore } from '../store/store.js';
import { resolveSuite, selectTasks } from '../tasks/resolve.js';
import { loadCollection } from '../verify/contract/collection.js';
import { PROMPT_VARIANTS, type PromptVariant } from '../tasks/types.js';
import type { SetExitCode } from './exit-codes.js';
import { addEnvironmentOptions, environmentChoice, type EnvironmentFlags } from './environment-options.js';
import { javaAttributionOption, tracedViewOf, type JavaAttribution } from './java-attribution.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';
import { parseFactors } from './repro.js';
import { runKey } from '../protocol/run-one.js';
import { FACTORS } from '../repro/types.js';
import { reproduceFinalProjects } from '../repro/final-projects.js';

function positiveInt(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} must be an integer ≥ ${min}, not "${value}"`);
    return n;
  };
}

function parseLanguages(value: string): EcosystemId[] {
  const langs = value === 'all' ? [...ecosystemIds()] : value.split(',').map((s) => s.trim());
  for (const l of langs) {
    if (!isEcosystemId(l)) throw new UsageError(`unknown language "${l}"`, `use ${ecosystemIds().join(', ')} or all`);
  }
  return langs;
}

function progressLine(e: ProgressEvent): string {
  const p = e.plan;
  return `[${e.done}/${e.total}] ${p.agent.name} ${p.task.id} ${p.language} #${p.trial}: ${e.phase} (failed so far: ${e.failures})`;
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
    .addOption(javaAttributionOption())
    .option('--agent-timeout <seconds>', 'time limit of each agent turn', positiveInt('--agent-timeout', 1), 1800)
    .option('--retries <n>', 'retries of an infrastructure failure (sandbox, registry, model API) before a run is set aside', positiveInt('--retries', 0), 2)
    .option('--retry-delay <seconds>', 'wait before the first retry (doubling after)', positiveInt('--retry-delay', 0), 5)
    .option('--store <path>', 'results store (SQLite)', DEFAULT_STORE)
    .option('--repro <k>', 'then re-run every successful final project k times, each in a fresh sandbox with a fresh install, and record its reproducibility (docs/repro.md)', positiveInt('--repro', 1))
    .option('--repro-vary <factors>', `what those re-runs vary: all, none, or a list of ${FACTORS.join(',')}`, 'all')
    .option('--repro-attribute', 'for a final project that does not reproduce, find the causes (a control run, then one factor at a time)')
    .option('--json', 'print the summary as JSON')
    .option('-q, --quiet', 'no progress lines');
  addEnvironmentOptions(command)
    .addHelpText(
      'after',
      '\nRe-running the same command resumes: finished runs are skipped and a run stopped half-way continues after its last recorded attempt; with --repro, final projects already re-run are skipped too.\nExit codes: 0 every run ended, 1 some runs were set aside after infrastructure failures (or, with --repro, some final projects could not be re-run), 2 error.',
    )
    .action(async (o: EnvironmentFlags & { agent: string[]; suite: string; spec?: string; collection?: string; startupTimeout: number; tasks: string; languages: string; trials: number; repairs: number; jobs: number; variant: PromptVariant; sandbox: BackendChoice; tracer: TracerChoice; timeout: number; javaAttribution: JavaAttribution; agentTimeout: number; retries: number; retryDelay: number; store: string; repro?: number; reproVary: string; reproAttribute?: boolean; json?: boolean; quiet?: boolean }) => {
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
      const store = ResultsStore.open(o.store);
      try {
        store.replaceRuns([], { source: 'envproof', tasks: tasks.map(({ id, title, domain, complexity }) => ({ id, title, domain, complexity })) });
        const summary = await runMatrix(plans, store, {
          jobs: o.jobs,
          repairs: o.repairs,
          sandbox: backend,
          environment,
          tracer: o.tracer,
          runTimeoutSec: o.timeout,
          tracedView: tracedViewOf(o.javaAttribution),
          agentTimeoutSec: o.agentTimeout,
          infraRetries: o.retries,
          retryDelaySec: o.retryDelay,
          ...(o.spec ? { backend: { spec: o.spec, ...(o.collection ? { collection: o.collection } : {}), startupTimeoutSec: o.startupTimeout } } : {}),
          onProgress: o.quiet ? () => {} : (e) => process.stderr.write(`${progressLine(e)}\n`),
        });
        const c = summary.counts;
        // Backend tasks serve rather than end: their suite evaluates them, there is no program run to repeat.
        const repro = o.repro
          ? await reproduceFinalProjects(plans.filter((p) => !p.task.backend).map(runKey), store, {
              k: o.repro,
              vary: reproVary,
              attribute: Boolean(o.reproAttribute),
              backend,
              systemPackages: environment.systemPackages ?? [],
              timeoutSec: o.timeout,
              progress: note,
            })
          : undefined;
        if (o.json) process.stdout.write(`${JSON.stringify({ store: o.store, ...summary, ...(repro ? { repro } : {}) }, null, 2)}\n`);
        else {
          process.stdout.write(
            `${summary.total} runs in ${(summary.durationMs / 1000).toFixed(1)} s: ${c.succeeded} succeeded, ${c.failed} failed, ${c.skipped} already done, ` +
              `${c['infrastructure-failed']} set aside (infrastructure), ${c['no-attempt']} without any attempt\n` +
              (repro ? `reproducibility: ${repro.reproduced} final projects re-run ${o.repro}x, ${repro.alreadyDone} already done, ${repro.errors.length} could not be re-run\n` : '') +
              `store: ${o.store} (envproof report --store ${o.store})\n`,
          );
        }
        setExitCode(c['infrastructure-failed'] > 0 || (repro?.errors.length ?? 0) > 0 ? EXIT_FINDINGS : EXIT_CLEAN);
      } finally {
        store.close();
      }
    });
}
