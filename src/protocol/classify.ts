import { goFacts } from '../ecosystems/go/facts.js';

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

const MISSING_MODULE = [
  /ModuleNotFoundError: No module named/,
  /ImportError: cannot import name|ImportError: No module named/,
  /Error: Cannot find module '[^./]/,
  /ERR_MODULE_NOT_FOUND/,
  /java\.lang\.(NoClassDefFoundError|ClassNotFoundException)/,
  /package [\w.]+ does not exist/,
];
const MISSING_SYSTEM_LIBRARY = [/error while loading shared libraries/, /fatal error: [\w/.+-]+\.h(pp)?: No such file or directory/, /cannot find -l\w+/];
/** Compiler settings the project chose that the toolchain refuses (Java release, C++ standard, flags): configuration. */
const COMPILER_CONFIGURATION = [
  /(?:Source|Target) option \S+ is no longer supported/,
  /invalid (?:source|target) release/,
  /release version \S+ not supported/,
  /unrecognized command[- ]line option/,
  /invalid value ['‘][^'’]*['’] in ['‘]-std=/,
];
/** Errors the compiler locates in a source file: the code itself does not compile. */
const SOURCE_ERROR = [/^\S+\.(?:c|cc|cpp|cxx|h|hh|hpp|hxx):\d+:\d+: (?:fatal )?error:/m, /\S+\.java:\[\d+,\d+\]/, /\S+\.java:\d+: error:/];

/** The build-failure patterns the ecosystems own (go: compiler positions, missing modules). */
const ECOSYSTEM_PATTERNS = goFacts.failurePatterns;

/** Class of a program that installed and built but did not exit 0 in time. */
export function classifyRunFailure(output: string, timedOut: boolean): ErrorClass {
  if (timedOut) return 'timeout';
  if (MISSING_SYSTEM_LIBRARY.some((re) => re.test(output))) return 'missing-system-library';
  if (MISSING_MODULE.some((re) => re.test(output))) return 'missing-dependency';
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
      return MISSING_SYSTEM_LIBRARY.some((re) => re.test(output)) ? 'missing-system-library' : 'build-configuration';
    default:
      if (step !== 'build') return 'build-configuration';
      if (MISSING_MODULE.some((re) => re.test(output))) return 'missing-dependency';
      if (MISSING_SYSTEM_LIBRARY.some((re) => re.test(output))) return 'missing-system-library';
      if (COMPILER_CONFIGURATION.some((re) => re.test(output))) return 'build-configuration';
      return ECOSYSTEM_PATTERNS.find((p) => p.pattern.test(output))?.class ?? (SOURCE_ERROR.some((re) => re.test(output)) ? 'code-bug' : 'build-configuration');
  }
}
