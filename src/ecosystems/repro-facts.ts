/**
 * What `envproof repro` needs to know of an ecosystem (docs/repro.md): the optional `repro` part of its module.
 * src/repro/ asks these and names no language; an ecosystem without the part is one repro does not support yet.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExecRequest } from '../sandbox/types.js';
import type { FactorId, RunnerId } from '../repro/types.js';
import type { AuditContext } from './types.js';

/** Installs the environment's way as of a date: each install step with the network is changed (pip's index, npm's `--before`). */
export interface DatedInstall {
  change(req: ExecRequest): ExecRequest;
  close(): Promise<void>;
}

/** Whether the package manager can resolve against the registry as of a date, and how; or why not. */
export type DatedResolution =
  | { supported: true; start(asOf: Date): Promise<DatedInstall> }
  | { supported: false; why: string };

/** What the environment holds, probed after the install, that decides how a factor is applied. */
export interface EnvironmentFacts {
  /** The plugin that shuffles the runner's tests (pytest-randomly: `randomly`), where one is installed. */
  shuffler?: string;
}

/** What a runner is given to change its order: arguments, or pytest's options (it reads them from PYTEST_ADDOPTS). */
export interface OrderOptions {
  runnerArgs?: string[];
  pytestOptions?: string[];
}

/** How one test runner shuffles its tests with a seed, so that a shuffled run can be repeated. */
export interface RunnerOrder {
  /** The options that shuffle with `seed`, and how a report names the shuffle; or why the runner cannot here. */
  shuffled(seed: number, facts: EnvironmentFacts): { options: OrderOptions; label: string } | { why: string };
  /** The options that keep the runner's own order, for a runner that may shuffle by default. */
  natural?(facts: EnvironmentFacts): OrderOptions;
  /** Whether the runner shuffles unless told not to (pytest with pytest-randomly): every run then draws its seed. */
  shufflesByDefault?(facts: EnvironmentFacts): boolean;
}

/** A runtime version line of the project's manifest (package.json `engines.node`, `requires-python`, go.mod `go`). */
export interface RuntimeRequirement {
  /** The promised tool (a doctor check) whose version must satisfy it: `node`, `python3`, `go`. */
  tool: string;
  /** The requirement as written, e.g. `>=22`. */
  range: string;
  /** Where it is written, e.g. `package.json engines.node`. */
  source: string;
  /** Whether `version` satisfies it; undefined when the requirement cannot be read. */
  satisfiedBy(version: string): boolean | undefined;
}

/** A way the project's test tools are installed that the project's own install leaves out. */
export interface TestDependencies {
  /** The command, run in the project directory after the install, e.g. `pip install -r requirements-test.txt`. */
  command: string;
  /** Where it was found, e.g. `requirements-test.txt`, `pyproject.toml [project.optional-dependencies] test`. */
  source: string;
}

export interface EcosystemRepro {
  /** A shell command, run like the tests, that prints the runtime's clock in seconds since 1970. */
  clockProbe(ctx: AuditContext): Promise<string>;
  /** Why libfaketime cannot shift the runtime's clock, said when the probe shows it was not. */
  clockLimit?: string;
  /**
   * Whether libfaketime also shifts the runtime's monotonic clock. It does not by default: Python's timed waits
   * (threading.Event.wait, queue.get with a timeout) never return when it does. The JVM needs it: with a real
   * monotonic clock under a shifted wall clock its housekeeping threads' timed waits return at once, and a JVM that
   * sleeps 3 s spins through 9 s of CPU.
   */
  fakesMonotonicClock?: boolean;
  /** A shell command, run like the tests, printing one line `<query> <count>` per usual way of asking how many CPUs there are. */
  cpuProbe(ctx: AuditContext): Promise<string>;
  datedResolution: DatedResolution;
  /** Factors the runtime leaves to chance unless they are set (Python's hash seed): every run draws and records them. */
  randomByDefault: readonly FactorId[];
  /** The ecosystem's test runners and how each shuffles. */
  testOrder: Partial<Record<RunnerId, RunnerOrder>>;
  /** What the environment holds that a factor depends on, probed after the install (`run`: a command as the tests run). */
  environmentFacts?(runner: RunnerId, probe: (command: string) => Promise<string>): Promise<EnvironmentFacts>;
  /**
   * After the install, before a test command: what the environment needs for it that the audit's build would have
   * made (Java: the class-load log directory; for Surefire, Maven's test plugins, fetched with the network).
   */
  prepareTests?(ctx: AuditContext, runner: RunnerId | undefined): Promise<void>;
  /**
   * Why runs cannot share one install (a copy of the installed work directory is not the whole install); absent: they
   * can, and runs that change only the run's environment each get a fresh copy of one install.
   */
  installNotShared?: string;
  /** The runtime version the project's manifest asks for, if it names one. */
  runtimeRequirement?(projectDir: string): Promise<RuntimeRequirement | undefined>;
  /** Ways of installing the project's test tools that its install leaves out (requirements-test.txt, extras, groups). */
  testDependencies?(projectDir: string): Promise<TestDependencies[]>;
  /** The runtime's message for a test tool a run lacked, the tool in group 1 (Python's `No module named pytest`); the shell's `not found` is known to all. */
  missingTool?: RegExp;
}

/** Writes a probe's source into the environment directory; returns its path as the sandbox sees it. */
export async function writeProbe(ctx: AuditContext, name: string, text: string): Promise<string> {
  const inside = path.posix.join(ctx.envDir, name);
  await writeFile(ctx.sandbox.toHost(inside) ?? inside, text);
  return inside;
}
