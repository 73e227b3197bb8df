import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { shellQuote } from '../core/shell.js';
import type { EcosystemId } from '../core/types.js';
import { entryPoint } from '../audit/audit.js';
import { detectEcosystem } from '../audit/detect.js';
import { javaLayout } from '../ecosystems/java/layout.js';
import { runMaven } from '../ecosystems/java/maven.js';
import type { AttributionResult, AuditContext, EcosystemModule, InstallResult, RunChoice } from '../ecosystems/types.js';
import type { FactorId, RunnerId } from './types.js';

export type KindId = EcosystemId;

/** Whether the package manager can resolve against the registry as of a date, and how; or why not. */
export type DatedResolution =
  | { supported: true; how: 'dated-index' | 'npm-before' }
  | { supported: false; why: string };

/**
 * What repro needs of a project's ecosystem: a fresh install, the test command (or, for `run --repro`, the
 * program's own entry point after the build) in that environment, a clock probe, and D3 for traced runs.
 */
export interface ProjectKind {
  id: KindId;
  /** The clean environment the project runs in. */
  language: EcosystemId;
  /** Debian packages added to it (libfaketime). */
  systemPackages: readonly string[];
  install(ctx: AuditContext): Promise<InstallResult>;
  /** The ecosystem's build, for the entry point (a test command builds what it needs itself). */
  build(ctx: AuditContext, install: InstallResult): Promise<void>;
  run(command: string, ctx: AuditContext, install: InstallResult): RunChoice;
  /**
   * After the install, before a test command (`runner`: its runner, when known): what the environment needs for it
   * that the audit's build would have made (Java: the class-load log directory the JVM options name; for Surefire,
   * Maven's test plugins, fetched with the network). What it runs is not compared.
   */
  prepareTests?(ctx: AuditContext, runner: RunnerId | undefined): Promise<void>;
  /** The command the audit would run: the ecosystem's entry point, else the README's run section. */
  entry(ctx: AuditContext, install: InstallResult, hostProject: string): Promise<RunChoice>;
  /** D3 of a traced run. */
  attribute(files: ReadonlySet<string>, ctx: AuditContext, install: InstallResult): Promise<AttributionResult>;
  /** A shell command, run like the tests, that prints the runtime's clock in seconds since 1970. */
  clockProbe(ctx: AuditContext): Promise<string>;
  /** Why the runtime cannot have its clock shifted, said when the probe shows it was not. */
  clockLimit?: string;
  /** A shell command, run like the tests, that prints one line `<query> <count>` per usual way of asking how many CPUs there are. */
  cpuProbe(ctx: AuditContext): Promise<string>;
  datedResolution: DatedResolution;
  /** Factors the runtime leaves to chance unless they are set (Python's hash seed): every run draws and records them. */
  randomByDefault: readonly FactorId[];
  /** Whether an installed work directory, copied, is the whole install (runs can then share one), or why not. */
  installReuse: { supported: true } | { supported: false; why: string };
}

/** libfaketime for the clock; Debian's locale sources, from which a run compiles the locale it varies to. */
const REPRO_PACKAGES = ['faketime', 'locales'];

const NO_DATE: Record<string, string> = {
  java: 'Maven resolves the versions the POM names; a version range is resolved from repository metadata that Maven Central does not keep per date',
  cpp: 'CMake has no package registry to resolve against a date (find_package takes what the system has, FetchContent what the project names)',
  go: 'Go\'s minimal version selection builds with the versions go.mod requires, the same on any date, and the module proxy has no query by date',
};

const DATED: Record<string, DatedResolution> = {
  python: { supported: true, how: 'dated-index' },
  javascript: { supported: true, how: 'npm-before' },
};

/** Python draws its string hash seed at every start unless PYTHONHASHSEED is set. */
const RANDOM_BY_DEFAULT: Record<string, readonly FactorId[]> = { python: ['hash-seed'] };

async function writeProbe(ctx: AuditContext, name: string, text: string): Promise<string> {
  const inside = path.posix.join(ctx.envDir, name);
  await writeFile(ctx.sandbox.toHost(inside) ?? inside, text);
  return inside;
}

const PROBES: Record<string, (ctx: AuditContext) => Promise<string>> = {
  python: async () => 'python3 -c "import time; print(int(time.time()))"',
  javascript: async () => 'node -e "console.log(Math.floor(Date.now() / 1000))"',
  java: async (ctx) => `java ${await writeProbe(ctx, 'Clock.java', 'class Clock { public static void main(String[] a) { System.out.println(System.currentTimeMillis() / 1000); } }\n')}`,
  cpp: async () => 'date +%s',
  go: async (ctx) => `go run ${await writeProbe(ctx, 'clock.go', 'package main\n\nimport (\n\t"fmt"\n\t"time"\n)\n\nfunc main() { fmt.Println(time.Now().Unix()) }\n')}`,
};

const CPU_PROBES: Record<string, (ctx: AuditContext) => Promise<string>> = {
  python: async () => `python3 -c ${shellQuote('import os; print("os.cpu_count()", os.cpu_count()); print("os.sched_getaffinity(0)", len(os.sched_getaffinity(0)))')}`,
  javascript: async () => `node -e ${shellQuote('const os = require("os"); console.log("os.cpus()", os.cpus().length); console.log("os.availableParallelism()", os.availableParallelism())')}`,
  java: async (ctx) => `java ${await writeProbe(ctx, 'Cpus.java', 'class Cpus { public static void main(String[] a) { System.out.println("Runtime.availableProcessors() " + Runtime.getRuntime().availableProcessors()); } }\n')}`,
  cpp: async () => `echo "sysconf(_SC_NPROCESSORS_ONLN) $(getconf _NPROCESSORS_ONLN)"; echo "sched_getaffinity (nproc) $(nproc)"`,
  go: async (ctx) => `go run ${await writeProbe(ctx, 'cpus.go', 'package main\n\nimport (\n\t"fmt"\n\t"runtime"\n)\n\nfunc main() { fmt.Println("runtime.NumCPU()", runtime.NumCPU()) }\n')}`,
};

/**
 * The class-load log directory (every JVM the command starts logs into it), and for Surefire a first `mvn test` with
 * the network: Maven resolves its build plugins, and Surefire its test provider, only as the tests run. Its reports are removed; its outcome is not compared.
 */
async function prepareMavenTests(ctx: AuditContext, runner: RunnerId | undefined): Promise<void> {
  const host = (inside: string) => ctx.sandbox.toHost(inside) ?? inside;
  await mkdir(host(javaLayout(ctx).classLoadLogs), { recursive: true });
  if (runner !== 'surefire') return;
  ctx.progress('fetching Maven\'s test plugins and Surefire\'s provider (mvn test, with the network)');
  await runMaven(ctx, { goals: ['test'], properties: { 'maven.test.failure.ignore': 'true' } }, true);
  await rm(host(path.posix.join(javaLayout(ctx).projectTarget, 'surefire-reports')), { recursive: true, force: true });
}

function kindOf(module: EcosystemModule): ProjectKind {
  const id = module.id;
  const clockProbe = PROBES[id];
  if (!clockProbe) throw new UsageError(`repro has no clock probe for ${module.displayName}`);
  return {
    id,
    language: id,
    systemPackages: REPRO_PACKAGES,
    install: (ctx) => module.install(ctx),
    build: async (ctx, install) => module.build?.(ctx, install),
    run: (command, ctx, install) => module.userRun(command, ctx, install),
    ...(id === 'java' ? { prepareTests: prepareMavenTests } : {}),
    entry: (ctx, install, hostProject) => entryPoint(module, ctx, install, hostProject),
    attribute: (files, ctx, install) => module.attribute(files, ctx, install),
    clockProbe,
    // Another runtime is at least asked what the C library and the affinity say.
    cpuProbe: CPU_PROBES[id] ?? CPU_PROBES.cpp!,
    ...(id === 'go' ? { clockLimit: 'Go reads the clock from the kernel (vDSO), not through libc, so libfaketime cannot shift it' } : {}),
    randomByDefault: RANDOM_BY_DEFAULT[id] ?? [],
    installReuse: id === 'java' ? { supported: false, why: 'Maven keeps what it resolved in the sandbox\'s cache layers, which end with the sandbox, not in the work directory' } : { supported: true },
    datedResolution: DATED[id] ?? { supported: false, why: NO_DATE[id] ?? `${module.displayName} has no way to resolve against a registry as of a date` },
  };
}

/** The project's kind: the ecosystem asked for, else the audit's detection. */
export async function detectKind(dir: string, requested: string): Promise<ProjectKind> {
  return kindOf((await detectEcosystem(dir, requested)).module);
}
