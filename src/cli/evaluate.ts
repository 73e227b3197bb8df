import { existsSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { EnvproofError, UsageError } from '../core/errors.js';
import type { EvaluateJob } from '../queue/jobs.js';
import { BACKEND_CHOICES, type BackendChoice } from '../sandbox/index.js';
import type { Evaluation } from '../verify/evaluate.js';
import { DATABASES, ORMS, type Constraints } from '../verify/types.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';
import { positiveInt } from './number-options.js';
import { addQueueOptions, checkQueueFlags, enqueueThen, type QueueFlags } from './queue-options.js';
import { DEFAULT_INSTALL_TIMEOUT_SEC } from '../ecosystems/step-limit.js';

/** The port each runtime's prompt names (the seed's: 8080 for Python, 3000 for Node). */
export const DEFAULT_PORTS = { python: 8080, javascript: 3000 } as const;

/** The options every evaluation command shares: contract, collection, sandbox, limits, output. */
function addServingOptions(command: Command): Command {
  return command
    .requiredOption('--spec <openapi.yml>', 'the API contract (OpenAPI 3)')
    .option('--collection <file>', 'a Postman v2.1 collection to run with Newman as well')
    .addOption(new Option('--sandbox <backend>', 'where the server is installed and run').choices([...BACKEND_CHOICES]).default('auto'))
    .option('--startup-timeout <seconds>', 'how long the health check is polled', positiveInt('--startup-timeout', 1), 30)
    .option('--timeout <seconds>', 'limit of the serving run', positiveInt('--timeout', 1), 900)
    .option('--install-timeout <seconds>', 'limit of each install and build step', positiveInt('--install-timeout', 1), DEFAULT_INSTALL_TIMEOUT_SEC)
    .option('--json', 'print the evaluation as JSON (docs/backend.md)')
    .option('-q, --quiet', 'no progress lines');
}

const progressOf = (quiet?: boolean) => (quiet ? () => {} : (m: string) => process.stderr.write(`envproof: ${m.split('\n')[0]}\n`));

function detectLanguage(dir: string): 'python' | 'javascript' {
  if (existsSync(path.join(dir, 'package.json'))) return 'javascript';
  if (['requirements.txt', 'pyproject.toml'].some((f) => existsSync(path.join(dir, f)))) return 'python';
  throw new UsageError(`cannot tell the language of ${dir}: no package.json, requirements.txt or pyproject.toml`, 'pass --language python|javascript');
}

function renderText(e: Evaluation): string {
  const lines = [`envproof evaluate: ${e.project} (${e.language})`, `result: ${e.passed ? 'PASSED' : `FAILED (${e.failureClass})`}`];
  lines.push(e.startup.started ? `server answered its health check after ${e.startup.afterMs} ms` : `server did not start: ${e.startup.reason}`);
  lines.push(`A% lenient ${e.aPct.lenient.toFixed(1)}  strict ${e.aPct.strict.toFixed(1)}  (envproof suite: ${e.contract?.passed ?? 0} of ${e.contract?.total ?? 107} assertions)`);
  if (e.postman) {
    const lost = e.postman.lostToScriptErrors ? `; ${e.postman.lostToScriptErrors} never reached: ${e.postman.scriptErrors.length} test script(s) threw` : '';
    lines.push(`Postman collection: ${e.postman.passed} of ${e.postman.total} assertions (${(e.postmanPct ?? 0).toFixed(1)}%${lost})`);
  }
  for (const v of e.verifiers?.verifiers ?? []) lines.push(`verifier ${v.name}: ${v.passed ? 'holds' : 'VIOLATED'}${v.strict ? ` (strict: ${v.strict.passed ? 'holds' : 'violated'})` : ''}${v.passed ? '' : ` — ${v.evidence[0]?.file}:${v.evidence[0]?.line} ${v.evidence[0]?.message}`}`);
  for (const a of (e.contract?.assertions ?? []).filter((x) => !x.passed).slice(0, 20)) lines.push(`  failed ${a.id}: ${a.message}`);
  if (e.environment) {
    const n = (k: 'declared' | 'installed' | 'traced') => e.environment!.layers[k]?.length ?? 'unknown';
    const { phantom, hidden } = e.environment.gaps;
    lines.push(`environment while serving: D1 ${n('declared')}, D2 ${n('installed')}, D3 ${n('traced')}; phantom ${phantom === null ? 'unknown' : phantom.join(', ') || '—'}; hidden ${hidden?.length ?? 'unknown'}`);
  }
  return `${lines.join('\n')}\n`;
}

/** One evaluate job; with `--wait`, its evaluation printed as a local one is (a dead letter is an error). */
async function evaluateOnQueue(options: EvaluateJob['options'], o: QueueFlags & { queue: string; json: boolean; quiet: boolean }, print: (e: Evaluation) => number): Promise<number> {
  const { snapshotTree } = await import('../protocol/tree.js');
  const { waitForJobs } = await import('../queue/client.js');
  const job: EvaluateJob = { kind: 'evaluate', options, treeHash: (await snapshotTree(options.dir)).hash };
  return enqueueThen(o, [job], async (queue, { completed }) => {
    let code = EXIT_CLEAN;
    await waitForJobs(queue, [job], {
      alreadyDone: completed,
      pollMs: o.pollInterval * 1000,
      onEnd: (e) => {
        if ('reason' in e) throw new EnvproofError(`the evaluation of ${options.dir} was dead-lettered: ${e.reason}`, 'see envproof queue status; envproof queue retry puts it back');
        if (e.alreadyDone && !o.quiet) process.stderr.write('envproof: evaluated before; the evaluation kept with its job\n');
        code = print(e.result);
      },
    });
    return code;
  });
}

export function registerEvaluate(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('evaluate')
    .description('Evaluate a generated backend: install and start it in the sandbox, run the contract suite (and a Postman collection), check its structural constraints, trace its environment')
    .argument('<dir>', 'the server project (with run.sh)')
    .addOption(new Option('--language <language>', 'the server\'s runtime (default: from its manifest)').choices(['python', 'javascript']))
    .addOption(new Option('--architecture <pattern>', 'verify the layered architecture').choices(['clean']))
    .addOption(new Option('--database <engine>', 'the database the server must use (postgresql: envproof starts one)').choices([...DATABASES]))
    .addOption(new Option('--orm <orm>', 'verify the ORM').choices([...ORMS]))
    .option('--port <n>', 'the port the server listens on (default 8080 Python, 3000 Node)', positiveInt('--port', 1));
  addQueueOptions(addServingOptions(command), 'the evaluation as one job')
    .addHelpText('after', '\nWith --queue --wait, the evaluation a worker made is printed as if made here; the same project (same files, same options) enqueued again adds nothing and prints the evaluation kept with its job.\nExit codes: 0 the server passed (every assertion, every verifier), 1 it failed, 2 error.')
    .action(async (dir: string, o: Constraints & QueueFlags & { spec: string; collection?: string; language?: 'python' | 'javascript'; port?: number; sandbox: BackendChoice; startupTimeout: number; timeout: number; installTimeout: number; json?: boolean; quiet?: boolean }, command: Command) => {
      checkQueueFlags(o, command, []);
      const { checkProjectDir } = await import('../audit/workspace.js');
      const project = await checkProjectDir(dir);
      if (!existsSync(path.join(project, 'run.sh'))) throw new UsageError(`no run.sh in ${project}`, 'the server must come with a run.sh that starts it in the foreground');
      const language = o.language ?? detectLanguage(project);
      const options = {
        dir: project,
        language,
        constraints: { architecture: o.architecture, database: o.database, orm: o.orm },
        sandbox: o.sandbox,
        port: o.port ?? DEFAULT_PORTS[language],
        spec: path.resolve(o.spec),
        ...(o.collection ? { collection: path.resolve(o.collection) } : {}),
        startupTimeoutSec: o.startupTimeout,
        timeoutSec: o.timeout,
        installTimeoutSec: o.installTimeout,
      };
      const print = (evaluation: Evaluation) => {
        process.stdout.write(o.json ? `${JSON.stringify(evaluation, null, 2)}\n` : renderText(evaluation));
        return evaluation.passed ? EXIT_CLEAN : EXIT_FINDINGS;
      };
      if (o.queue) {
        setExitCode(await evaluateOnQueue(options, { ...o, queue: o.queue, json: o.json === true, quiet: o.quiet === true }, print));
        return;
      }
      const { evaluateBackend } = await import('../verify/evaluate.js');
      setExitCode(print(await evaluateBackend({ ...options, progress: progressOf(o.quiet) })));
    });
}

export function registerEvaluateFeature(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('evaluate-feature')
    .description('Evaluate a feature-implementation task: pristine checkout, removal patch, the agent\'s patch, then the suites (no verifiers)')
    .argument('<task.json>', 'the task (docs/backend.md)')
    .option('--patch <file>', "the agent's patch (a unified diff against the stripped checkout)")
    .option('--tree <dir>', "the agent's final tree, from which its patch is computed");
  addServingOptions(command)
    .addHelpText('after', '\nWithout --patch or --tree the stripped checkout itself is evaluated (the baseline).\nExit codes: 0 passed, 1 failed, 2 error.')
    .action(async (file: string, o: { spec: string; collection?: string; patch?: string; tree?: string; sandbox: BackendChoice; startupTimeout: number; timeout: number; installTimeout: number; json?: boolean; quiet?: boolean }) => {
      if (o.patch && o.tree) throw new UsageError('give --patch or --tree, not both');
      const { agentPatch, evaluateFeatureTask, loadFeatureTask } = await import('../verify/feature-task.js');
      const { readFile } = await import('node:fs/promises');
      const task = await loadFeatureTask(file);
      const patch = o.patch ? await readFile(o.patch, 'utf8') : o.tree ? await agentPatch(task, path.resolve(o.tree)) : undefined;
      const evaluation = await evaluateFeatureTask(task, patch, {
        spec: o.spec,
        collection: o.collection,
        sandbox: o.sandbox,
        startupTimeoutSec: o.startupTimeout,
        timeoutSec: o.timeout,
        installTimeoutSec: o.installTimeout,
        progress: progressOf(o.quiet),
      });
      process.stdout.write(o.json ? `${JSON.stringify(evaluation, null, 2)}\n` : renderText(evaluation));
      setExitCode(evaluation.passed ? EXIT_CLEAN : EXIT_FINDINGS);
    });
}
