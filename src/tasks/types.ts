import type { EcosystemId } from '../core/types.js';
import type { BackendTaskInfo } from './backend.js';

/** One task of a suite. Ids, titles, domains and complexity of the paper's suite are facts from its Table B3. */
export interface Task {
  id: string;
  title: string;
  domain: string;
  complexity: string;
  /** What the program does, in a paragraph. */
  description: string;
  functionalRequirements: string[];
  /** Backend-generation tasks (the `backend` suite): framework, language, constraints, level, port. */
  backend?: BackendTaskInfo;
}

/**
 * explicit: the task, then the request for a complete project for a clean machine (source, a manifest pinning
 * direct and transitive dependencies, a README); implicit: the task alone.
 */
export type PromptVariant = 'explicit' | 'implicit';
export const PROMPT_VARIANTS: readonly PromptVariant[] = ['explicit', 'implicit'];

export interface TaskSuite {
  /** How the suite was named on the command line, e.g. `bundled`, `envgap-prompts:<dir>`, a file path. */
  name: string;
  tasks: Task[];
  /** The prompt an agent receives for a task in a language. */
  prompt(task: Task, language: EcosystemId, variant: PromptVariant): string;
}
