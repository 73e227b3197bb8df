import { access } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError, UsageError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { ecosystemIds, ecosystems, ecosystemById } from '../ecosystems/index.js';
import type { EcosystemModule } from '../ecosystems/types.js';

export interface Detection {
  module: EcosystemModule;
  /** Other ecosystems whose manifests are present too. */
  alsoPresent: EcosystemId[];
}

async function present(dir: string, file: string): Promise<boolean> {
  return access(path.join(dir, file)).then(
    () => true,
    () => false,
  );
}

/** Picks the ecosystem module: the one asked for, or the first whose manifest is in the directory. */
export async function detectEcosystem(dir: string, requested: string): Promise<Detection> {
  if (requested !== 'auto') {
    const module = ecosystemById(requested);
    if (!module) throw new UsageError(`unknown ecosystem "${requested}"`, `use one of: auto, ${ecosystemIds().join(', ')}`);
    return { module, alsoPresent: [] };
  }
  const found: EcosystemModule[] = [];
  for (const eco of ecosystems()) {
    for (const file of eco.manifestFiles) {
      if (await present(dir, file)) {
        found.push(eco);
        break;
      }
    }
  }
  const [first, ...rest] = found;
  if (!first) {
    const known = ecosystems().map((e) => `${e.projectKind}: ${e.manifestFiles.join(', ')}`).join('; ');
    throw new EnvproofError(`no manifest found in ${dir}`, `envproof looks for ${known}; or pass --ecosystem`);
  }
  return { module: first, alsoPresent: rest.map((e) => e.id) };
}
