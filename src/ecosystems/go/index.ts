/**
 * Go modules: D1 from go.mod (declared.ts), D2 the build list in a fresh module cache (install.ts), a build of the
 * main package (build.ts), and D3 the modules the built binary's build information lists plus the shared libraries
 * the run loaded (attribute.ts). The outputs: SBOM facts (component-facts.ts), static imports (static-imports.ts)
 * and go.mod edits for `envproof fix` (manifest-edit.ts).
 */
import type { EcosystemModule } from '../types.js';
import { goAttribute } from './attribute.js';
import { goBuild, goDefaultRun, goUserRun } from './build.js';
import { goComponentFacts } from './component-facts.js';
import { extractGoDeclared } from './declared.js';
import { goFacts } from './facts.js';
import { goInstall } from './install.js';
import { goManifestEditor } from './manifest-edit.js';
import { goStaticImports } from './static-imports.js';
import { goRepro } from './repro.js';

export const goEcosystem: EcosystemModule = {
  ...goFacts,
  repro: goRepro,
  extractDeclared: extractGoDeclared,
  install: goInstall,
  build: goBuild,
  defaultRun: async (ctx, install) => goDefaultRun(ctx, install),
  userRun: (command, ctx) => goUserRun(command, ctx),
  attribute: goAttribute,
  componentFacts: goComponentFacts,
  staticImports: (ctx, install) => goStaticImports(ctx, install),
  manifestEditor: goManifestEditor,
};
