import type { FailurePattern } from '../ecosystems/facts.js';
import { failurePatterns } from '../ecosystems/index.js';

/**
 * Error classes of a failed attempt, as fed back to the agent and stored. `infrastructure` marks failures
 * that are not the agent's (sandbox, registry unreachable): retried, never counted against the agent.
 */
export type ErrorClass =
  | 'missing-dependency'
  | 'missing-system-library'
  | 'build-configuration'
  | 'code-bug'
  | 'fetch-failure'
  | 'timeout'
  | 'no-entry-point'
  | 'agent-error'
  | 'infrastructure';

/** The paper's `initial_error_type` vocabulary, so imported and envproof runs share one metric code path (SLAR). */
export const PAPER_ERROR_TYPE: Record<ErrorClass, string> = {
  'missing-dependency': 'MissingDep',
  'missing-system-library': 'SystemLib',
  'build-configuration': 'BuildConfig',
  'code-bug': 'CodeBug',
  'fetch-failure': 'InstallError',
  timeout: 'RuntimeError',
  'no-entry-point': 'BuildConfig',
  'agent-error': 'AgentError',
  infrastructure: 'Infrastructure',
};

/** The dynamic loader's message, whichever ecosystem's program it stopped. */
const SHARED_LIBRARY_NOT_LOADED = /error while loading shared libraries/;

type PatternClass = FailurePattern['class'];

/** Whether `output` shows a message of class `cls`: the loader's, or one of an ecosystem's tools (the registry's). */
function shows(output: string, cls: PatternClass): boolean {
  if (cls === 'missing-system-library' && SHARED_LIBRARY_NOT_LOADED.test(output)) return true;
  return failurePatterns().some((p) => p.class === cls && p.pattern.test(output));
}

/** Class of a program that installed and built but did not exit 0 in time. */
export function classifyRunFailure(output: string, timedOut: boolean): ErrorClass {
  if (timedOut) return 'timeout';
  if (shows(output, 'missing-system-library')) return 'missing-system-library';
  if (shows(output, 'missing-dependency')) return 'missing-dependency';
  return 'code-bug';
}

/** Class of a failed install, configure or build step, from the ecosystem's own failure class. */
export function classifyStepFailure(step: string, failureClass: string, output: string): ErrorClass {
  switch (failureClass) {
    // Only the registry itself being unreachable is infrastructure (ecosystems/registry.ts decides, from evidence).
    case 'registry-unreachable':
      return 'infrastructure';
    case 'timeout':
      return 'timeout';
    case 'network':
    case 'no-such-package':
    case 'no-matching-version':
    case 'fetch-failure':
      return 'fetch-failure';
    case 'missing-system-library':
      return 'missing-system-library';
    case 'native-build-failure':
      return shows(output, 'missing-system-library') ? 'missing-system-library' : 'build-configuration';
    default:
      if (step !== 'build') return 'build-configuration';
      if (shows(output, 'missing-dependency')) return 'missing-dependency';
      if (shows(output, 'missing-system-library')) return 'missing-system-library';
      // Compiler settings the toolchain refuses are configuration, even beside errors it locates in the source.
      if (shows(output, 'build-configuration')) return 'build-configuration';
      return shows(output, 'code-bug') ? 'code-bug' : 'build-configuration';
  }
}
