import { Command, Option } from 'commander';
import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { BACKEND_CHOICES, type BackendChoice } from '../sandbox/index.js';
import { TRACER_CHOICES, type TracerChoice } from '../trace/index.js';
import { FACTORS, type FactorId } from '../repro/types.js';
import { parseDate } from '../repro/reference.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { DEFAULT_STORE, STORE_OPTION_HELP } from '../store/store.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';
import { positiveNumber } from './number-options.js';
import { addQueueOptions, checkQueueFlags, enqueueThen, type QueueFlags } from './queue-options.js';
import { jobLabel, resultLabel, type ReproJob } from '../queue/jobs.js';
import { DEFAULT_INSTALL_TIMEOUT_SEC } from '../ecosystems/step-limit.js';

export function parseFactors(value: string, option = '--vary'): FactorId[] {
  if (value === 'all') return [...FACTORS];
  if (value === 'none') return [];
  const names = listOption(value);
  for (const n of names) {
    if (!FACTORS.includes(n as FactorId)) throw new UsageError(`${option}: unknown factor "${n}"`, `use all, none, or a comma-separated list of ${FACTORS.join(', ')}`);
  }
  return [...new Set(names as FactorId[])];
}

/** `--attribute` alone: stop at the first factor that is a cause; `--attribute all`: try every factor. */
function attributeAll(value: boolean | string | undefined): boolean {
  if (value === undefined || value === true) return false;
  if (value === 'all') return true;
  throw new UsageError(`--attribute takes "all" or nothing, not "${value}"`, 'give the project directory before the options, or --attribute all to try every factor');
}

function listOption(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

interface ReproFlags {
  cmd?: string;
  k: string;
  vary: string;
  attribute?: boolean | string;
  trials: string;
  freshInstalls?: boolean;
  shim?: boolean;
  reference?: string;
  asOf?: string;
  ecosystem: string;
  sandbox: BackendChoice;
  systemPackages?: string;
  timeout: string;
  installTimeout: string;
  tracer?: TracerChoice;
  install: string[];
  testDeps: boolean;
  json?: boolean;
  quiet?: boolean;
  corpus?: string;
  store: string;
}

/** The options of every instance's runs, as the corpus flags give them. */
function instanceOptions(o: ReproFlags) {
  return {
    k: positiveNumber('--k')(o.k),
    vary: parseFactors(o.vary),
    attribute: true,
    attributeAll: attributeAll(o.attribute),
    trials: positiveNumber('--trials')(o.trials),
    ...(o.freshInstalls ? { freshInstalls: true } : {}),
    backend: o.sandbox,
    systemPackages: listOption(o.systemPackages),
    timeoutSec: positiveNumber('--timeout')(o.timeout),
    installTimeoutSec: positiveNumber('--install-timeout')(o.installTimeout),
    ...(o.tracer ? { tracer: o.tracer } : {}),
  };
}

async function corpus(o: ReproFlags & { corpus?: string; store: string }, progress: (m: string) => void): Promise<number> {
  const { readCorpus, runCorpus } = await import('../repro/corpus.js');
  const { corpusFigures, renderCorpusText } = await import('../repro/corpus-stats.js');
  const { storedInstances } = await import('../repro/corpus-report.js');
  const { ResultsStore } = await import('../store/store.js');
  // Input first: a bad corpus line or flag must not leave a new store behind.
  const instances = await readCorpus(o.corpus!);
  const options = instanceOptions(o);
  const store = await ResultsStore.open(o.store);
  try {
    const summary = await runCorpus({ corpus: o.corpus!, instances, store, ...options, progress });
    const stored = await storedInstances(store, summary.corpus);
    const rows = stored.map((s) => s.row);
    const figures = corpusFigures(stored);
    if (summary.skipped.length) progress(`already done in ${store.location}: ${summary.skipped.join(', ')}`);
    process.stdout.write(o.json ? `${JSON.stringify({ ...summary, instances: rows, figures }, null, 2)}\n` : renderCorpusText(figures));
    return rows.every((r) => r.verdict === 'reproducible') ? EXIT_CLEAN : EXIT_FINDINGS;
  } finally {
    await store.close();
  }
}

/**
 * `repro --corpus --queue`: every line and every patch checked as `repro --corpus` checks them (a bad one is an
 * error and nothing is enqueued), then one job per instance; with `--wait`, each instance's verdicts as it ends.
 */
async function corpusOnQueue(o: ReproFlags & QueueFlags & { corpus: string; queue: string }): Promise<number> {
  const { readCorpus, checkInstances, corpusName } = await import('../repro/corpus.js');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const os = await import('node:os');
  const { waitForJobs } = await import('../queue/client.js');
  const instances = await readCorpus(o.corpus);
  const work = await mkdtemp(path.join(os.tmpdir(), 'envproof-corpus-'));
  await checkInstances(instances, work).finally(() => rm(work, { recursive: true, force: true }));
  const options = instanceOptions(o);
  const jobs: ReproJob[] = instances.map((i) => ({ kind: 'repro', corpus: corpusName(o.corpus), instance: { ...i, recordedAt: i.recordedAt.toISOString() }, options }));
  const flags = { ...o, json: o.json === true, quiet: o.quiet === true };
  return enqueueThen(flags, jobs, async (queue, { completed, where }) => {
    const ended: Record<string, unknown>[] = [];
    let allReproducible = true;
    await waitForJobs(queue, jobs, {
      alreadyDone: completed,
      pollMs: o.pollInterval * 1000,
      onEnd: (e) => {
        if (!flags.quiet) process.stderr.write(`[${e.done}/${e.total}] ${jobLabel(e.job)}: ${'reason' in e ? `dead-lettered (${e.reason})` : resultLabel(e.job, e.result)}\n`);
        allReproducible &&= !('reason' in e) && e.result.verdict === 'reproducible';
        ended.push({ id: e.job.instance.id, ...('reason' in e ? { deadLettered: e.reason } : e.result) });
      },
    });
    const counts = (v: string) => ended.filter((x) => x.verdict === v).length;
    const dead = ended.filter((x) => x.deadLettered !== undefined).length;
    if (flags.json) process.stdout.write(`${JSON.stringify({ queue: where, corpus: corpusName(o.corpus), instances: ended }, null, 2)}\n`);
    else process.stdout.write(`${ended.length} instances on ${where}: ${counts('reproducible')} reproducible, ${counts('flaky')} flaky, ${counts('broken')} broken, ${dead} dead-lettered (envproof report --repro --store <the workers' store>)\n`);
    return allReproducible ? EXIT_CLEAN : EXIT_FINDINGS;
  });
}

export function registerRepro(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('repro')
    .description('Do test outcomes reproduce? k fresh re-runs under controlled variation, cause attribution, a pinning shim')
    .argument('[dir]', 'the project directory (not with --corpus)')
    .option('--cmd <command>', 'the test command (shell), e.g. "pytest -q", "npx jest", "node --test", "go test ./..."')
    .option('--k <n>', 'number of fresh re-runs', '5')
    .option('--vary <factors>', `what the re-runs vary: all, none, or a list of ${FACTORS.join(',')}`, 'all')
    .option('--attribute [all]', 'find the causes: a control run with everything pinned, then one factor at a time, stopping at the first that is a cause (all: try every factor)')
    .option('--trials <n>', 'with --attribute: the most runs of the control and of each factor, repeated until Fisher\'s exact test tells cause from chance', '6')
    .option('--shim', 'also re-run under the pinning shim, each shim run beside one in the default environment, and report its verdict and overhead')
    .option('--fresh-installs', 'install fresh for every run, rather than give the runs that change only the run\'s environment a copy of one install')
    .option('--reference <file>', 'a reference outcome recorded earlier (JSON) instead of a first run')
    .option('--as-of <date>', 'the date the reference stands for: the first run resolves dependencies as of then; the shim pins clock and index to it')
    .addOption(new Option('--ecosystem <name>', 'the project\'s ecosystem').choices(['auto', ...ecosystemIds()]).default('auto'))
    .addOption(new Option('--sandbox <backend>', 'where installs and runs happen').choices([...BACKEND_CHOICES]).default('auto'))
    .option('--system-packages <names>', 'Debian packages to add to the clean environment (comma-separated)')
    .option('--timeout <seconds>', 'time limit of each test run', '600')
    .option('--install-timeout <seconds>', 'time limit of each install and build step', String(DEFAULT_INSTALL_TIMEOUT_SEC))
    .addOption(
      new Option('--tracer <name>', 'trace every run (fast, strace, or auto: fast where it can run) and compare what it loaded (D3) with the reference run\'s; default: untraced, because tracing slows the tests (strace up to ~1.8x) and can change their timing')
        .choices([...TRACER_CHOICES]),
    )
    .option('--install <command>', 'install the tests\' tools in every run after the project\'s install, with the network (repeatable), e.g. "pip install -r requirements-test.txt"; replaces the detected ones', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--no-test-deps', 'do not install the test tools envproof detects (requirements-test.txt, a test or dev extra or dependency group, tox.ini deps)')
    .option('--corpus <file.jsonl>', 'a corpus of patches on local git repositories (docs/repro.md): each re-run with and without the shim, and its baseline')
    .option('--store <path|url>', `with --corpus: ${STORE_OPTION_HELP}`, DEFAULT_STORE);
  addQueueOptions(command, 'with --corpus: one job per instance')
    .option('--json', 'print the report as JSON (docs/repro.md)')
    .option('-q, --quiet', 'no progress messages')
    .addHelpText('after', '\nWith --corpus --queue, the workers (envproof worker --store ...) record the instances; enqueuing the same corpus again adds nothing.\nExit codes: 0 reproducible, 1 flaky or broken (or, with --queue --wait, dead-lettered), 2 error.')
    .action(async (dir: string | undefined, o: ReproFlags & QueueFlags) => {
      const progress = o.quiet ? () => {} : (m: string) => process.stderr.write(`envproof: ${m}\n`);
      checkQueueFlags(o, command, ['store']);
      const all = attributeAll(o.attribute);
      if (o.queue && !o.corpus) throw new UsageError('--queue needs --corpus', 'one project is reproduced here; a corpus can go on the queue');
      if (o.corpus) {
        if (dir || o.cmd || o.reference || o.asOf || o.install.length) throw new UsageError('--corpus takes the directories, commands, outcomes and dates from the corpus file', 'leave out <dir>, --cmd, --install, --reference and --as-of');
        setExitCode(o.queue ? await corpusOnQueue({ ...o, corpus: o.corpus, queue: o.queue }) : await corpus(o, progress));
        return;
      }
      if (!dir) throw new UsageError('repro needs the project directory', 'envproof repro <dir> --cmd "<test command>", or --corpus <file.jsonl>');
      if (!o.cmd) throw new UsageError('repro needs the test command', 'pass --cmd "<test command>"');
      const { runRepro } = await import('../repro/repro.js');
      const { renderReproText } = await import('../repro/text.js');
      const report = await runRepro({
        dir,
        command: o.cmd,
        k: positiveNumber('--k')(o.k),
        vary: parseFactors(o.vary),
        attribute: Boolean(o.attribute),
        attributeAll: all,
        ...(o.freshInstalls ? { freshInstalls: true } : {}),
        trials: positiveNumber('--trials')(o.trials),
        shim: Boolean(o.shim),
        ...(o.reference ? { referenceFile: o.reference } : {}),
        ...(o.asOf ? { asOf: parseDate(o.asOf, '--as-of') } : {}),
        ecosystem: o.ecosystem,
        backend: o.sandbox,
        systemPackages: listOption(o.systemPackages),
        timeoutSec: positiveNumber('--timeout')(o.timeout),
        installTimeoutSec: positiveNumber('--install-timeout')(o.installTimeout),
        ...(o.tracer ? { tracer: o.tracer } : {}),
        install: o.install,
        testDependencies: o.testDeps,
        progress,
      });
      process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : renderReproText(report));
      setExitCode(report.verdict === 'reproducible' ? EXIT_CLEAN : EXIT_FINDINGS);
    });
}
