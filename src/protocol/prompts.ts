import type { EcosystemId } from '../core/types.js';
import { ecosystem } from '../ecosystems/index.js';
import type { AttemptFailure } from './execute.js';

const STEP_WORDS: Record<AttemptFailure['step'], string> = {
  manifest: 'reading the manifest',
  install: 'installing the dependencies',
  configure: 'configuring the build',
  build: 'building',
  entry: 'finding the program to run',
  run: 'running the program with no arguments',
  sandbox: 'preparing the environment',
};

/** The Repair prompt: the previous attempt's error, its class and the tail of the failing step's output. */
export function repairPrompt(failure: AttemptFailure, language: EcosystemId): string {
  const lang = ecosystem(language).prompt;
  return [
    `Your project was set up on a clean machine with only ${lang.runtime}, and it failed while ${STEP_WORDS[failure.step]}.`,
    `Error class: ${failure.class}`,
    '',
    'Last lines of output:',
    '```',
    failure.tail.trimEnd(),
    '```',
    '',
    `Fix the project so that it installs, builds and runs with no arguments on that machine. Keep ${lang.manifest} complete, with every dependency pinned to an exact version.`,
    '',
  ].join('\n');
}

/** The Repair prompt of a backend task: what the evaluation found (failure class, failed assertions, verifiers, log). */
export function backendRepairPrompt(failure: AttemptFailure): string {
  return [
    'Your server was installed and started on a clean machine and tested against the contract. It did not pass:',
    '',
    '```',
    failure.tail.trimEnd(),
    '```',
    '',
    'Fix the project so that every operation behaves as the contract says and every required constraint holds. Keep run.sh starting the server in the foreground.',
    '',
  ].join('\n');
}
