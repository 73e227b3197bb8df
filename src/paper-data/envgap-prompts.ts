import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { readPromptOverview } from '../paper-data/envgap-import.js';
import { ecosystem } from '../ecosystems/index.js';
import type { PromptVariant, Task, TaskSuite } from '../tasks/types.js';

/** The paragraph that asks for a complete project starts with this line in every prompt file of the paper. */
const COMPLETENESS_START = /^Create a complete /m;

/** Splits a prompt file into the task part (title, description, requirements) and the completeness block. */
export function splitPromptFile(text: string): { task: string; completeness: string } {
  const m = COMPLETENESS_START.exec(text);
  if (!m) return { task: text.trimEnd(), completeness: '' };
  return { task: text.slice(0, m.index).trimEnd(), completeness: text.slice(m.index).trimEnd() };
}

function parseTaskPart(taskPart: string): { description: string; requirements: string[] } {
  const [head = '', reqs = ''] = taskPart.split(/^FUNCTIONAL REQUIREMENTS:\s*$/m);
  const description = head.replace(/^TASK:.*$/m, '').trim();
  const requirements = reqs
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2));
  return { description, requirements };
}

/**
 * The paper's original prompts, read from a local copy of its repository layout:
 * `<dir>/prompt_overview.csv` and `<dir>/<language>_prompts/p_NN.md`. Nothing of it is bundled with envproof.
 */
export function loadEnvgapPrompts(dir: string): TaskSuite {
  const overview = path.join(dir, 'prompt_overview.csv');
  if (!existsSync(overview)) {
    throw new EnvproofError(`no prompt_overview.csv in ${dir}`, 'give the data/prompts folder of a copy of the EnvGap repository: envgap-prompts:<dir>');
  }
  const promptFile = (id: string, language: EcosystemId) => {
    const { displayName, prompt } = ecosystem(language);
    if (!prompt.envgapFolder) throw new EnvproofError(`the paper has no prompts for ${displayName}`, 'use the bundled suite for this language');
    return path.join(dir, prompt.envgapFolder, `${id}.md`);
  };
  const read = (id: string, language: EcosystemId): string => {
    const file = promptFile(id, language);
    try {
      return readFileSync(file, 'utf8');
    } catch {
      throw new EnvproofError(`missing prompt file ${file}`, 'the suite folder must hold <language>_prompts/p_NN.md for every task and language');
    }
  };
  const tasks: Task[] = readPromptOverview(overview).map((info) => {
    const { description, requirements } = parseTaskPart(splitPromptFile(read(info.id, 'python')).task);
    return { ...info, title: info.title ?? info.id, complexity: info.complexity ?? '', description, functionalRequirements: requirements };
  });
  return {
    name: `envgap-prompts:${dir}`,
    tasks,
    prompt(task: Task, language: EcosystemId, variant: PromptVariant): string {
      const text = read(task.id, language);
      return `${variant === 'explicit' ? text.trimEnd() : splitPromptFile(text).task}\n`;
    },
  };
}
