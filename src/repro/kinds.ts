import { UsageError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { entryPoint } from '../audit/audit.js';
import { detectEcosystem } from '../audit/detect.js';
import type { EcosystemRepro } from '../ecosystems/repro-facts.js';
import type { AttributionResult, AuditContext, EcosystemModule, InstallResult, RunChoice } from '../ecosystems/types.js';

export type KindId = EcosystemId;

/**
 * What repro needs of a project's ecosystem: a fresh install, the test command (or, for `run --repro`, the
 * program's own entry point after the build) in that environment, D3 for traced runs, and the ecosystem's repro
 * part (probes, shuffles, dated resolution, src/ecosystems/repro-facts.ts).
 */
export interface ProjectKind extends EcosystemRepro {
  id: KindId;
  /** The clean environment the project runs in. */
  language: EcosystemId;
  /** Debian packages added to it (libfaketime). */
  systemPackages: readonly string[];
  install(ctx: AuditContext): Promise<InstallResult>;
  /** The ecosystem's build, for the entry point (a test command builds what it needs itself). */
  build(ctx: AuditContext, install: InstallResult): Promise<void>;
  run(command: string, ctx: AuditContext, install: InstallResult): RunChoice;
  /** The command the audit would run: the ecosystem's entry point, else the README's run section. */
  entry(ctx: AuditContext, install: InstallResult, hostProject: string): Promise<RunChoice>;
  /** D3 of a traced run. */
  attribute(files: ReadonlySet<string>, ctx: AuditContext, install: InstallResult): Promise<AttributionResult>;
}

/** libfaketime for the clock; Debian's locale sources, from which a run compiles the locale it varies to. */
const REPRO_PACKAGES = ['faketime', 'locales'];

/** The kind of an ecosystem's projects; a usage error for an ecosystem whose module has no repro part. */
export function kindOf(module: EcosystemModule): ProjectKind {
  if (!module.repro) {
    throw new UsageError(`repro does not support ${module.id} (${module.displayName}) yet`, 'its ecosystem module has no repro part (docs/ecosystems.md); envproof audit still works on it');
  }
  return {
    ...module.repro,
    id: module.id,
    language: module.id,
    systemPackages: REPRO_PACKAGES,
    install: (ctx) => module.install(ctx),
    build: async (ctx, install) => module.build?.(ctx, install),
    run: (command, ctx, install) => module.userRun(command, ctx, install),
    entry: (ctx, install, hostProject) => entryPoint(module, ctx, install, hostProject),
    attribute: (files, ctx, install) => module.attribute(files, ctx, install),
  };
}

/** The project's kind: the ecosystem asked for, else the audit's detection. */
export async function detectKind(dir: string, requested: string): Promise<ProjectKind> {
  return kindOf((await detectEcosystem(dir, requested)).module);
}
