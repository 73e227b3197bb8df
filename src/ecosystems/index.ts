/**
 * The registry of ecosystems: one map, in the paper's order. Everything outside src/ecosystems/ that depends on a
 * language asks here (docs/ecosystems.md); adding an ecosystem is one line in `ecosystems()`.
 *
 * The registry is read through functions, not constants: ecosystem modules import the sandbox and tracer, which ask
 * the registry in turn, so the list can only be built once every module has been evaluated (on first use).
 */
import { UsageError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { cppEcosystem } from './cpp/index.js';
import type { FailurePattern } from './facts.js';
import { goEcosystem } from './go/index.js';
import { javaEcosystem } from './java/index.js';
import { javascriptEcosystem } from './javascript/index.js';
import { pythonEcosystem } from './python/index.js';
import type { EcosystemModule } from './types.js';

let registered: readonly EcosystemModule[] | undefined;

/**
 * Every ecosystem module, in the paper's order: the order of detection (the first whose manifest is present wins),
 * of report tables and of `--languages all`. Each registers with one line.
 */
export function ecosystems(): readonly EcosystemModule[] {
  registered ??= [pythonEcosystem, javaEcosystem, javascriptEcosystem, cppEcosystem, goEcosystem];
  return registered;
}

/** The ids of every registered ecosystem, in registry order. */
export function ecosystemIds(): EcosystemId[] {
  return ecosystems().map((e) => e.id);
}

export function ecosystemById(id: EcosystemId): EcosystemModule | undefined {
  return ecosystems().find((e) => e.id === id);
}

export function isEcosystemId(id: string): id is EcosystemId {
  return ecosystemById(id) !== undefined;
}

/** The module of a registered ecosystem; a usage error naming the registered ones otherwise. */
export function ecosystem(id: EcosystemId): EcosystemModule {
  const module = ecosystemById(id);
  if (!module) throw new UsageError(`unknown ecosystem "${id}"`, `use one of: ${ecosystemIds().join(', ')}`);
  return module;
}

/** Folders never part of a project's tree: version control, and every ecosystem's environments and build output. */
export function skippedDirs(): ReadonlySet<string> {
  return new Set(['.git', ...ecosystems().flatMap((e) => e.skipDirs)]);
}

/**
 * Every ecosystem's failure patterns. A tool's message means the same whoever ran it (pip builds C extensions with
 * gcc), so every pattern applies to every attempt.
 */
export function failurePatterns(): FailurePattern[] {
  return ecosystems().flatMap((e) => e.failurePatterns);
}

/**
 * The package-cache variables of every ecosystem, for a cache whose root the program sees at `cacheRoot`. The caches
 * only make downloads faster: every layer comes from the package manager's answer about one run's own environment,
 * never from what a cache contains.
 */
export function packageCacheEnv(cacheRoot: string): Record<string, string> {
  return Object.assign({}, ...ecosystems().map((e) => e.caches.env(cacheRoot))) as Record<string, string>;
}
