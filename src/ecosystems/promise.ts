/**
 * The task prompts' promise about the clean machine ("only Node.js 20 (LTS) is installed"), checked against what an
 * environment really runs: each promised tool (a doctor check of the ecosystem) is started inside the environment,
 * its version read from its output and compared with the promised minimum. An environment build records the
 * versions (so caches and results say which runtime ran) and refuses an environment that breaks the promise.
 */
import type { EcosystemId } from '../core/types.js';
import type { DoctorCheck } from './facts.js';
import { versionAtLeast } from '../core/dotted-version.js';
import { ecosystem } from './index.js';

export { versionAtLeast };

/** Runs a command in the environment being checked; stdout and stderr are both searched for the version. */
export type ToolRunner = (argv: readonly string[]) => Promise<{ exitCode: number | null; stdout: string; stderr: string }>;

export interface ToolVersion {
  name: string;
  /** The version the tool reported, or null when it did not run or printed none. */
  version: string | null;
  atLeast?: string;
  kept: boolean;
}

/** The promised tools of `language`, each with the doctor check that finds its version. */
export function promisedTools(language: EcosystemId): { check: DoctorCheck; atLeast?: string }[] {
  const facts = ecosystem(language);
  return facts.prompt.promise.map(({ check, atLeast }) => {
    const found = facts.doctor.find((d) => d.name === check);
    if (!found) throw new Error(`${language}: the prompt's promise names ${check}, which is not one of its doctor checks`);
    return { check: found, ...(atLeast ? { atLeast } : {}) };
  });
}

/** Runs each promised tool of `language` through `run` and says whether it keeps the promise. */
export async function measurePromise(language: EcosystemId, run: ToolRunner): Promise<ToolVersion[]> {
  const out: ToolVersion[] = [];
  for (const { check, atLeast } of promisedTools(language)) {
    const r = await run(check.argv);
    const m = r.exitCode === 0 ? check.version.exec(`${r.stdout}\n${r.stderr}`) : null;
    const version = m?.[1] ?? null;
    out.push({ name: check.name, version, ...(atLeast ? { atLeast } : {}), kept: version !== null && (!atLeast || versionAtLeast(version, atLeast)) });
  }
  return out;
}

/** One line per broken promise: "node 18.20.4 (the prompts promise 20 or newer)", "mvn did not run". */
export function brokenPromises(results: readonly ToolVersion[]): string[] {
  return results
    .filter((r) => !r.kept)
    .map((r) => (r.version === null ? `${r.name} did not run or printed no version` : `${r.name} ${r.version} (the prompts promise ${r.atLeast} or newer)`));
}

/** The versions as reports write them: "node 20.20.2, npm 10.8.2". */
export function toolsLabel(tools: Readonly<Record<string, string>>): string {
  return Object.entries(tools).map(([t, v]) => `${t} ${v}`).join(', ');
}

/** name → version of the tools that reported one. */
export function toolVersions(results: readonly ToolVersion[]): Record<string, string> {
  return Object.fromEntries(results.filter((r) => r.version !== null).map((r) => [r.name, r.version!]));
}
