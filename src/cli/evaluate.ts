import { existsSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { BACKEND_CHOICES, type BackendChoice } from '../sandbox/index.js';
import type { Evaluation } from '../verify/evaluate.js';
import { DATABASES, ORMS, type Constraints } from '../verify/types.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';

/** The port each runtime's prompt names (the seed's: 8080 for Python, 3000 for Node). */
export const DEFAULT_PORTS = { python: 8080, javascript: 3000 } as const;

function positive(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, not "${v}"`);
    return n;
  };
}

/** The options every evaluation command shares: contract, collection, sandbox, limits, output. */
function addServingOptions(command: Command): Command {
  return command
    .requiredOption('--spec <openapi.yml>', 'the API contract (OpenAPI 3)')
    .option('--collection <file>', 'a Postman v2.1 collection to run with Newman as well')
    .addOption(new Option('--sandbox <backend>', 'where the server is installed and run').choices([...BACKEND_CHOICES]).default('auto'))
    .option('--startup-timeout <seconds>', 'how long the health check is polled', positive('--startup-timeout'), 30)
    .option('--timeout <seconds>', 'limit of each install step and of the serving run', positive('--timeout'), 900)
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
  if (e.postman) lines.push(`Postman collection: ${e.postman.passed} of ${e.postman.total} assertions (${(e.postmanPct ?? 0).toFixed(1)}%)`);
  for (const v of e.verifiers?.verifiers ?? []) lines.push(`verifier ${v.name}: ${v.passed ? 'holds' : 'VIOLATED'}${v.strict ? ` (strict: ${v.strict.passed ? 'holds' : 'violated'})` : ''}${v.passed ? '' : ` — ${v.evidence[0]?.file}:${v.evidence[0]?.line} ${v.evidence[0]?.message}`}`);
  for (const a of (e.contract?.assertions ?? []).filter((x) => !x.passed).slice(0, 20)) lines.push(`  failed ${a.id}: ${a.message}`);
  if (e.environment) {
    const n = (k: 'declared' | 'installed' | 'traced') => e.environment!.layers[k]?.length ?? 'unknown';
    const { phantom, hidden } = e.environment.gaps;
    lines.push(`environment while serving: D1 ${n('declared')}, D2 ${n('installed')}, D3 ${n('traced')}; phantom ${phantom === null ? 'unknown' : phantom.join(', ') || '—'}; hidden ${hidden?.length ?? 'unknown'}`);
  }
  return `${lines.join('\n')}\n`;
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
    .option('--port <n>', 'the port the server listens on (default 8080 Python, 3000 Node)', positive('--port'));
  addServingOptions(command)
    .addHelpText('after', '\nExit codes: 0 the server passed (every assertion, every verifier), 1 it failed, 2 error.')
    .action(async (dir: string, o: Constraints & { spec: string; collection?: string; language?: 'python' | 'javascript'; port?: number; sandbox: BackendChoice; startupTimeout: number; timeout: number; json?: boolean; quiet?: boolean }) => {
      const { evaluateBackend } = await import('../verify/evaluate.js');
      const { checkProjectDir } = await import('../audit/workspace.js');
      const project = await checkProjectDir(dir);
      if (!existsSync(path.join(project, 'run.sh'))) throw new UsageError(`no run.sh in ${project}`, 'the server must come with a run.sh that starts it in the foreground');
      const language = o.language ?? detectLanguage(project);
      const evaluation = await evaluateBackend({
        dir: project,
        language,
        constraints: { architecture: o.architecture, database: o.database, orm: o.orm },
        sandbox: o.sandbox,
        port: o.port ?? DEFAULT_PORTS[language],
        spec: o.spec,
        collection: o.collection,
        startupTimeoutSec: o.startupTimeout,
        timeoutSec: o.timeout,
        progress: progressOf(o.quiet),
      });
      process.stdout.write(o.json ? `${JSON.stringify(evaluation, null, 2)}\n` : renderText(evaluation));
      setExitCode(evaluation.passed ? EXIT_CLEAN : EXIT_FINDINGS);
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
    .action(async (file: string, o: { spec: string; collection?: string; patch?: string; tree?: string; sandbox: BackendChoice; startupTimeout: number; timeout: number; json?: boolean; quiet?: boolean }) => {
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
        progress: progressOf(o.quiet),
      });
      process.stdout.write(o.json ? `${JSON.stringify(evaluation, null, 2)}\n` : renderText(evaluation));
      setExitCode(evaluation.passed ? EXIT_CLEAN : EXIT_FINDINGS);
    });
}
