import { Command, Option } from 'commander';
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

export function parseFactors(value: string, option = '--vary'): FactorId[] {
  if (value === 'all') return [...FACTORS];
  if (value === 'none') return [];
  const names = listOption(value);
  for (const n of names) {
    if (!FACTORS.includes(n as FactorId)) throw new UsageError(`${option}: unknown factor "${n}"`, `use all, none, or a comma-separated list of ${FACTORS.join(', ')}`);
  }
  return [...new Set(names as FactorId[])];
}

function listOption(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

interface ReproFlags {
  cmd?: string;
  k: string;
  vary: string;
  attribute?: boolean;
  shim?: boolean;
  reference?: string;
  asOf?: string;
  ecosystem: string;
  sandbox: BackendChoice;
  systemPackages?: string;
  timeout: string;
  tracer?: TracerChoice;
  json?: boolean;
  quiet?: boolean;
  corpus?: string;
  store: string;
}

async function corpus(o: ReproFlags & { corpus?: string; store: string }, progress: (m: string) => void): Promise<number> {
  const { runCorpus } = await import('../repro/corpus.js');
  const { corpusFigures, renderCorpusMarkdown } = await import('../repro/corpus-stats.js');
  const { ResultsStore } = await import('../store/store.js');
  const store = await ResultsStore.open(o.store);
  try {
    const summary = await runCorpus({
      corpus: o.corpus!,
      store,
      k: positiveNumber('--k')(o.k),
      vary: parseFactors(o.vary),
      attribute: true,
      backend: o.sandbox,
      systemPackages: listOption(o.systemPackages),
      timeoutSec: positiveNumber('--timeout')(o.timeout),
      ...(o.tracer ? { tracer: o.tracer } : {}),
      progress,
    });
    const rows = await store.repro().instances(summary.corpus);
    const figures = corpusFigures(rows);
    if (summary.skipped.length) progress(`already done in ${store.location}: ${summary.skipped.join(', ')}`);
    process.stdout.write(o.json ? `${JSON.stringify({ ...summary, instances: rows, figures }, null, 2)}\n` : renderCorpusMarkdown(figures));
    return rows.every((r) => r.verdict === 'reproducible') ? EXIT_CLEAN : EXIT_FINDINGS;
  } finally {
    await store.close();
  }
}

export function registerRepro(program: Command, setExitCode: SetExitCode): void {
  program
    .command('repro')
    .description('Do test outcomes reproduce? k fresh re-runs under controlled variation, cause attribution, a pinning shim')
    .argument('[dir]', 'the project directory (not with --corpus)')
    .option('--cmd <command>', 'the test command (shell), e.g. "pytest -q", "npx jest", "node --test", "go test ./..."')
    .option('--k <n>', 'number of fresh re-runs', '5')
    .option('--vary <factors>', `what the re-runs vary: all, none, or a list of ${FACTORS.join(',')}`, 'all')
    .option('--attribute', 'find the causes: a control run with everything pinned, then one factor at a time')
    .option('--shim', 'also re-run under the pinning shim and report its verdict and overhead')
    .option('--reference <file>', 'a reference outcome recorded earlier (JSON) instead of a first run')
    .option('--as-of <date>', 'the date the reference stands for: the first run resolves dependencies as of then; the shim pins clock and index to it')
    .addOption(new Option('--ecosystem <name>', 'the project\'s ecosystem').choices(['auto', ...ecosystemIds()]).default('auto'))
    .addOption(new Option('--sandbox <backend>', 'where installs and runs happen').choices([...BACKEND_CHOICES]).default('auto'))
    .option('--system-packages <names>', 'Debian packages to add to the clean environment (comma-separated)')
    .option('--timeout <seconds>', 'time limit of each test run', '600')
    .addOption(
      new Option('--tracer <name>', 'trace every run (fast, strace, or auto: fast where it can run) and compare what it loaded (D3) with the reference run\'s; default: untraced, because tracing slows the tests (strace up to ~1.8x) and can change their timing')
        .choices([...TRACER_CHOICES]),
    )
    .option('--corpus <file.jsonl>', 'a corpus of patches on local git repositories (docs/repro.md): each re-run with and without the shim, and its baseline')
    .option('--store <path|url>', `with --corpus: ${STORE_OPTION_HELP}`, DEFAULT_STORE)
    .option('--json', 'print the report as JSON (docs/repro.md)')
    .option('-q, --quiet', 'no progress messages')
    .addHelpText('after', '\nExit codes: 0 reproducible, 1 flaky or broken, 2 error.')
    .action(async (dir: string | undefined, o: ReproFlags) => {
      const progress = o.quiet ? () => {} : (m: string) => process.stderr.write(`envproof: ${m}\n`);
      if (o.corpus) {
        if (dir || o.cmd || o.reference || o.asOf) throw new UsageError('--corpus takes the directories, commands, outcomes and dates from the corpus file', 'leave out <dir>, --cmd, --reference and --as-of');
        setExitCode(await corpus(o, progress));
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
        shim: Boolean(o.shim),
        ...(o.reference ? { referenceFile: o.reference } : {}),
        ...(o.asOf ? { asOf: parseDate(o.asOf, '--as-of') } : {}),
        ecosystem: o.ecosystem,
        backend: o.sandbox,
        systemPackages: listOption(o.systemPackages),
        timeoutSec: positiveNumber('--timeout')(o.timeout),
        ...(o.tracer ? { tracer: o.tracer } : {}),
        progress,
      });
      process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : renderReproText(report));
      setExitCode(report.verdict === 'reproducible' ? EXIT_CLEAN : EXIT_FINDINGS);
    });
}
