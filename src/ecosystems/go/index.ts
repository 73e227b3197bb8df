/**
 * Go modules: D1 from go.mod (declared.ts), D2 the build list in a fresh module cache (install.ts), a build of the
 * main package (build.ts), and D3 the modules the built binary's build information lists plus the shared libraries
 * the run loaded (attribute.ts).
 */
import type { EcosystemModule } from '../types.js';
import { goAttribute } from './attribute.js';
import { goBuild, goDefaultRun, goUserRun } from './build.js';
import { extractGoDeclared } from './declared.js';
import { goFacts } from './facts.js';
import { goInstall } from './install.js';

export const goEcosystem: EcosystemModule = {
  ...goFacts,
  extractDeclared: extractGoDeclared,
  install: goInstall,
  build: goBuild,
  defaultRun: async (ctx, install) => goDefaultRun(ctx, install),
  userRun: (command, ctx) => goUserRun(command, ctx),
  attribute: goAttribute,
};
