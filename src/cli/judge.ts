import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { EnvproofError, UsageError } from '../core/errors.js';
import { DEFAULT_STORE } from '../store/store.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN } from './exit-codes.js';

const JUDGE_SPEC = 'openai:model=<m>[,base=<url>][,key-env=<VAR>] or anthropic:model=<m>[,base=<url>][,key-env=<VAR>] (asked at temperature 0)';

export function registerJudge(program: Command, setExitCode: SetExitCode): void {
  program
    .command('judge')
    .description('Label the root cause of the logic errors of backend runs with an LLM judge, or measure its agreement with manual labels (Cohen\'s kappa)')
    .requiredOption('--judge <spec>', JUDGE_SPEC)
    .option('--store <path>', 'results store whose unlabelled logic errors are judged', DEFAULT_STORE)
    .option('--agreement <labels.json>', 'judge manually labelled failures instead and report Cohen\'s kappa: [{ id, label, evidence }]')
    .option('--explain', 'print each prompt the judge is given (on stderr)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExit codes: 0 done, 2 error.')
    .action(async (o: { judge: string; store: string; agreement?: string; explain?: boolean; json?: boolean }) => {
      const { chatTransportFromSpec } = await import('../agents/spec.js');
      const { judge, judgeAgreement } = await import('../verify/judge.js');
      const { transport } = chatTransportFromSpec(o.judge, process.env, { temperature: 0 });
      const explain = o.explain ? (system: string, prompt: string) => process.stderr.write(`--- system\n${system}\n--- prompt\n${prompt}\n---\n`) : undefined;
      if (o.agreement) {
        let labelled;
        try {
          labelled = JSON.parse(readFileSync(o.agreement, 'utf8'));
        } catch (err) {
          throw new EnvproofError(`cannot read the labelled failures ${o.agreement}: ${(err as Error).message}`);
        }
        if (!Array.isArray(labelled) || labelled.some((l) => typeof l?.id !== 'string' || typeof l?.label !== 'string' || typeof l?.evidence !== 'object')) {
          throw new UsageError(`${o.agreement} must be a JSON list of { id, label, evidence }`);
        }
        const r = await judgeAgreement(transport, labelled, explain);
        if (o.json) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
        else {
          for (const i of r.items) process.stdout.write(`${i.label === i.judged ? '  ' : '≠ '}${i.id}: labelled ${i.label}, judged ${i.judged}\n`);
          process.stdout.write(`Cohen's kappa ${r.kappa === null ? '—' : r.kappa.toFixed(3)} over ${r.n} failures (observed agreement ${(100 * r.observed).toFixed(1)}%, by chance ${(100 * r.expected).toFixed(1)}%)\n`);
        }
        setExitCode(EXIT_CLEAN);
        return;
      }
      const { ResultsStore } = await import('../store/store.js');
      const store = ResultsStore.open(o.store, { mustExist: true });
      try {
        const todo = store.backendEvaluations().filter((e) => e.failureClass === 'logic-error' && !e.rootCause);
        const out: { run: string; rootCause: string; reason: string }[] = [];
        for (const e of todo) {
          const failed = e.assertions.filter((a) => !a.passed);
          const j = await judge(transport, {
            framework: e.framework,
            constraints: e.constraints,
            failed,
            passedCount: e.assertions.length - failed.length,
            total: e.assertions.length,
            serverLog: e.serverLog ?? '',
            ...(e.verifiers ? { verifiers: e.verifiers } : {}),
          }, explain);
          store.setRootCause(e.key, e.attempt, j.rootCause, j.reason);
          out.push({ run: `${e.key.agent} ${e.key.taskId} #${e.key.trial}`, rootCause: j.rootCause, reason: j.reason });
        }
        if (o.json) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        else process.stdout.write(`${out.map((r) => `${r.run}: ${r.rootCause} — ${r.reason}`).join('\n')}${out.length ? '\n' : ''}${out.length} logic errors judged\n`);
        setExitCode(EXIT_CLEAN);
      } finally {
        store.close();
      }
    });
}
