import { Option, type Command } from 'commander';
import type { EcosystemId } from '../core/types.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { findTask, resolveSuite } from '../tasks/resolve.js';
import { PROMPT_VARIANTS, type PromptVariant, type Task } from '../tasks/types.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN } from './exit-codes.js';

const SUITE_HELP = 'bundled (default), backend (needs --spec), envgap-prompts:<dir>, or a YAML/JSON suite file';
const SPEC_HELP = 'the API contract of the backend suite (OpenAPI 3)';

function printTable(tasks: readonly Task[]): void {
  const columns: (keyof Task)[] = ['id', 'title', 'domain', 'complexity'];
  const widths = columns.map((c) => Math.max(c.length, ...tasks.map((t) => String(t[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ');
  const rows = [columns.map(String), ...tasks.map((t) => columns.map((c) => String(t[c])))];
  process.stdout.write(`${rows.map(line).join('\n')}\n`);
}

export function registerTasks(program: Command, setExitCode: SetExitCode): void {
  const tasks = program.command('tasks').description('List the tasks of a suite and show the prompts agents receive');
  tasks
    .command('list')
    .description('List the tasks of a suite: id, title, domain, complexity')
    .option('--suite <spec>', SUITE_HELP, 'bundled')
    .option('--spec <openapi.yml>', SPEC_HELP)
    .option('--json', 'print the tasks as JSON')
    .action((o: { suite: string; spec?: string; json?: boolean }) => {
      const suite = resolveSuite(o.suite, { contract: o.spec });
      if (o.json) process.stdout.write(`${JSON.stringify(suite.tasks, null, 2)}\n`);
      else printTable(suite.tasks);
      setExitCode(EXIT_CLEAN);
    });
  tasks
    .command('show <id>')
    .description('Show one task and the exact prompt an agent receives for it')
    .option('--suite <spec>', SUITE_HELP, 'bundled')
    .option('--spec <openapi.yml>', SPEC_HELP)
    .addOption(new Option('--language <language>', 'the language of the prompt (default python; a backend task\'s own)').choices(ecosystemIds()))
    .addOption(new Option('--variant <variant>', 'explicit asks for a complete project for a clean machine; implicit gives the task alone').choices(PROMPT_VARIANTS).default('explicit'))
    .option('--json', 'print the task and its prompt as JSON')
    .action((id: string, o: { suite: string; spec?: string; language?: EcosystemId; variant: PromptVariant; json?: boolean }) => {
      const suite = resolveSuite(o.suite, { contract: o.spec });
      const task = findTask(suite, id);
      const language = o.language ?? task.backend?.language ?? 'python';
      const prompt = suite.prompt(task, language, o.variant);
      if (o.json) {
        process.stdout.write(`${JSON.stringify({ suite: suite.name, language, variant: o.variant, task, prompt }, null, 2)}\n`);
      } else {
        process.stdout.write(
          [
            `${task.id}  ${task.title}`,
            `domain: ${task.domain}    complexity: ${task.complexity}    suite: ${suite.name}`,
            '',
            `Prompt (${language}, ${o.variant}):`,
            '----',
            prompt.trimEnd(),
            '----',
            '',
          ].join('\n'),
        );
      }
      setExitCode(EXIT_CLEAN);
    });
}
