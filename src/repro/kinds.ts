import { access, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { detectEcosystem } from '../audit/detect.js';
import type { AuditContext, InstallResult, RunChoice } from '../ecosystems/types.js';
import { goInstall, goRun } from './go.js';

export type KindId = EcosystemId;
/** The ecosystems whose own modules install for repro; Go has a kind of its own below. */
type ModuleKindId = Exclude<EcosystemId, 'go'>;

/** Whether the package manager can resolve against the registry as of a date, and how; or why not. */
export type DatedResolution =
  | { supported: true; how: 'dated-index' | 'npm-before' }
  | { supported: false; why: string };

/** What repro needs of a project's ecosystem: a fresh install, the test command in that environment, a clock probe. */
export interface ProjectKind {
  id: KindId;
  /** The clean environment the project runs in. */
  language: EcosystemId;
  /** Debian packages added to it (libfaketime always; Go's toolchain for Go). */
  systemPackages: readonly string[];
  install(ctx: AuditContext): Promise<InstallResult>;
  run(command: string, ctx: AuditContext, install: InstallResult): RunChoice;
  /** A shell command, run like the tests, that prints the runtime's clock in seconds since 1970. */
  clockProbe(ctx: AuditContext): Promise<string>;
  /** Why the runtime cannot have its clock shifted, said when the probe shows it was not. */
  clockLimit?: string;
  datedResolution: DatedResolution;
}

const FAKETIME = 'faketime';

const NO_DATE: Record<string, string> = {
  java: 'Maven resolves the versions the POM names; a version range is resolved from repository metadata that Maven Central does not keep per date',
  cpp: 'CMake has no package registry to resolve against a date (find_package takes what the system has, FetchContent what the project names)',
  go: 'Go\'s minimal version selection builds with the versions go.mod requires, the same on any date, and the module proxy has no query by date',
};

async function writeProbe(ctx: AuditContext, name: string, text: string): Promise<string> {
  const inside = path.posix.join(ctx.envDir, name);
  await writeFile(ctx.sandbox.toHost(inside) ?? inside, text);
  return inside;
}

async function ecosystemKind(id: ModuleKindId, dir: string): Promise<ProjectKind> {
  const { module } = await detectEcosystem(dir, id);
  const probes: Record<string, (ctx: AuditContext) => Promise<string>> = {
    python: async () => 'python3 -c "import time; print(int(time.time()))"',
    javascript: async () => 'node -e "console.log(Math.floor(Date.now() / 1000))"',
    java: async (ctx) => `java ${await writeProbe(ctx, 'Clock.java', 'class Clock { public static void main(String[] a) { System.out.println(System.currentTimeMillis() / 1000); } }\n')}`,
    cpp: async () => 'date +%s',
  };
  const clockProbe = probes[id];
  if (!clockProbe) throw new UsageError(`repro has no clock probe for ${module.displayName}`);
  return {
    id,
    language: id,
    systemPackages: [FAKETIME],
    install: (ctx) => module.install(ctx),
    run: (command, ctx, install) => module.userRun(command, ctx, install),
    clockProbe,
    datedResolution: id === 'python' ? { supported: true, how: 'dated-index' } : id === 'javascript' ? { supported: true, how: 'npm-before' } : { supported: false, why: NO_DATE[id] ?? `envproof knows no way to resolve ${module.displayName} dependencies as of a date` },
  };
}

const goKind: ProjectKind = {
  id: 'go',
  language: 'cpp',
  systemPackages: [FAKETIME, 'golang-go'],
  install: goInstall,
  run: (command, ctx) => goRun(command, ctx),
  clockProbe: async (ctx) =>
    `go run ${await writeProbe(ctx, 'clock.go', 'package main\n\nimport (\n\t"fmt"\n\t"time"\n)\n\nfunc main() { fmt.Println(time.Now().Unix()) }\n')}`,
  clockLimit: 'Go reads the clock from the kernel (vDSO), not through libc, so libfaketime cannot shift it',
  datedResolution: { supported: false, why: NO_DATE.go! },
};

async function exists(file: string): Promise<boolean> {
  return access(file).then(() => true, () => false);
}

/** The project's kind: the one asked for, else Go when go.mod is present, else the audit's ecosystem detection. */
export async function detectKind(dir: string, requested: string): Promise<ProjectKind> {
  if (requested !== 'auto' && !ecosystemIds().includes(requested)) {
    throw new UsageError(`unknown ecosystem "${requested}"`, `use one of: auto, ${ecosystemIds().join(', ')}`);
  }
  if (requested === 'go' || (requested === 'auto' && (await exists(path.join(dir, 'go.mod'))))) return goKind;
  if (requested !== 'auto') return ecosystemKind(requested as ModuleKindId, dir);
  const detected = (await detectEcosystem(dir, 'auto')).module.id;
  return detected === 'go' ? goKind : ecosystemKind(detected, dir);
}
