/**
 * Classifies a failed CMake configure or build from its output (pure), into the classes the paper's
 * SLAR/EGAR metrics need: a library that is not installed, a download that failed, anything else.
 */

export type CmakeFailureClass = 'missing-system-library' | 'fetch-failure' | 'build-configuration' | 'build';

const FETCH_FAILURE = [
  /Failed to clone repository/i,
  /error: downloading .* failed/i,
  /Each download failed/i,
  /Build step for \S+ failed/i,
  /fatal: (repository|unable to access|could not read|not a git repository)/i,
  /Could not resolve host/i,
  /could not find git for clone/i,
  /Failed to checkout tag/i,
  /CMake Error at \S*FetchContent\.cmake/i,
  /CMake Error at \S*ExternalProject\S*\.cmake/i,
];

const MISSING_LIBRARY: { pattern: RegExp; name: number }[] = [
  { pattern: /Could NOT find (\S+)/, name: 1 },
  { pattern: /Could not find a package configuration file provided by\s+"([^"]+)"/, name: 1 },
  { pattern: /By not providing "Find(\S+)\.cmake"/, name: 1 },
  { pattern: /No package '([^']+)' found/, name: 1 },
  { pattern: /Package '([^']+)',? required by '[^']*', not found/, name: 1 },
  { pattern: /None of the required '([^']+)' found/, name: 1 },
  { pattern: /The following required packages were not found:\s*\n\s*-\s*(\S+)/, name: 1 },
];

export interface ClassifiedFailure {
  failureClass: CmakeFailureClass;
  /** The library or download that is missing, when the output names one. */
  subject?: string;
}

/** Configure output: fetch failures first (a failing sub-build can also print "not found" lines). */
export function classifyConfigureFailure(output: string): ClassifiedFailure {
  if (FETCH_FAILURE.some((p) => p.test(output))) {
    const subject = /Build step for (\S+) failed/.exec(output)?.[1] ?? /Failed to clone repository: '([^']+)'/.exec(output)?.[1];
    return { failureClass: 'fetch-failure', subject };
  }
  for (const { pattern, name } of MISSING_LIBRARY) {
    const m = pattern.exec(output);
    if (m) return { failureClass: 'missing-system-library', subject: m[name] };
  }
  return { failureClass: 'build-configuration' };
}

/** Build output: ExternalProject downloads happen at build time, so they can fail there too. */
export function classifyBuildFailure(output: string): ClassifiedFailure {
  if (FETCH_FAILURE.some((p) => p.test(output))) return { failureClass: 'fetch-failure' };
  return { failureClass: 'build' };
}
