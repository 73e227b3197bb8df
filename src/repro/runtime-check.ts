/**
 * A project whose manifest asks for a runtime the environment does not have (package.json `engines.node`,
 * `requires-python`, go.mod's `go` line) is refused before the first run: every run would fail the same way, and
 * a failure to start is no outcome to reproduce. The environment's versions are those its build recorded
 * (`envproof env list`); on the host, the promised tools are asked.
 */
import { UsageError } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import { measurePromise, toolVersions } from '../ecosystems/promise.js';
import type { RuntimeRequirement } from '../ecosystems/repro-facts.js';
import { ensureEnvironment } from '../sandbox/rootfs.js';
import type { SandboxBackend } from '../sandbox/types.js';
import type { ProjectKind } from './kinds.js';

/** The refusal when `tools` (name → version) does not satisfy `required`; undefined when it does, or cannot be told. */
export function unmetRuntime(required: RuntimeRequirement, tools: Readonly<Record<string, string>>, language: EcosystemId): UsageError | undefined {
  const version = tools[required.tool];
  if (version === undefined || required.satisfiedBy(version) !== false) return undefined;
  return new UsageError(
    `the project asks for ${required.tool} ${required.range} (${required.source}), and the ${language} environment has ${required.tool} ${version}`,
    "repro runs the project in envproof's clean environment, whose runtime is fixed (`envproof env list` shows it); every run would fail to start the same way",
  );
}

/** The promised tools' versions where the runs happen: the environment's record, or the host's own tools. */
async function environmentTools(language: EcosystemId, backend: SandboxBackend, progress: (message: string) => void): Promise<Record<string, string>> {
  if (backend === 'host') {
    const run = (argv: readonly string[]) => runProcess(argv, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 30_000 });
    return toolVersions(await measurePromise(language, run));
  }
  return (await ensureEnvironment(language, { progress })).marker.tools ?? {};
}

export async function checkRuntime(kind: ProjectKind, projectDir: string, backend: SandboxBackend, progress: (message: string) => void): Promise<void> {
  const required = await kind.runtimeRequirement?.(projectDir);
  if (!required) return;
  const refusal = unmetRuntime(required, await environmentTools(kind.language, backend, progress), kind.language);
  if (refusal) throw refusal;
}
