import type { EcosystemId } from '../core/types.js';
import { ecosystem } from '../ecosystems/index.js';
import type { PromptVariant, Task } from './types.js';

/** The system the environments are (Debian bookworm), named as prompts name it; the paper's prompts say Ubuntu 22.04. */
export const SYSTEM = 'Debian 12';

/** envproof's own prompt wording for tasks of the bundled and user suites. */
export function renderPrompt(task: Task, language: EcosystemId, variant: PromptVariant): string {
  const { displayName, prompt } = ecosystem(language);
  const parts = [
    `TASK: ${task.title}`,
    '',
    task.description,
    '',
    'FUNCTIONAL REQUIREMENTS:',
    ...task.functionalRequirements.map((r) => `- ${r}`),
    '- When started with no arguments, the program runs a short demonstration on data it creates itself and exits with status 0',
  ];
  if (variant === 'explicit') {
    parts.push(
      '',
      `Deliver a complete ${displayName} project that builds and runs on a clean ${SYSTEM} machine where only ${prompt.runtime} is installed. It must contain:`,
      '- the source code',
      `- ${prompt.manifest}, listing every dependency, direct and transitive, pinned to an exact version`,
      '- README.md explaining setup, each dependency, how to build, how to run, and the expected output',
    );
  } else {
    parts.push('', `Write it in ${displayName}.`);
  }
  return `${parts.join('\n')}\n`;
}
