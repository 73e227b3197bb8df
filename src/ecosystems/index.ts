import type { EcosystemId } from '../core/types.js';
import { cppEcosystem } from './cpp/index.js';
import { goEcosystem } from './go/index.js';
import { javaEcosystem } from './java/index.js';
import { javascriptEcosystem } from './javascript/index.js';
import { pythonEcosystem } from './python/index.js';
import type { EcosystemModule } from './types.js';

/** Every ecosystem module, in detection order. Each module registers itself with one line here. */
export const ECOSYSTEMS: EcosystemModule[] = [pythonEcosystem, javascriptEcosystem, javaEcosystem, cppEcosystem, goEcosystem];

export function ecosystemById(id: EcosystemId): EcosystemModule | undefined {
  return ECOSYSTEMS.find((e) => e.id === id);
}
