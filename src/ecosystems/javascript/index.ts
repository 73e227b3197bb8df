import type { EcosystemModule } from '../types.js';
import { topLevelVersion, type NpmInstallDetails } from './npm-tree.js';
import { attribute } from './attribute.js';
import { install } from './install.js';
import { extractDeclared, OTHER_GROUPS } from './manifest.js';
import { javascriptFacts } from './facts.js';
import { defaultRun, userRun } from './run.js';
import { npmComponentFacts } from './component-facts.js';
import { npmManifestEditor } from './manifest-edit.js';
import { npmStaticImports } from './static-imports.js';
import { javascriptRepro } from './repro.js';

/** npm projects: D1 from package.json, D2 from `npm ls`, D3 from files opened under node_modules. */
export const javascriptEcosystem: EcosystemModule<NpmInstallDetails> = {
  ...javascriptFacts,
  repro: javascriptRepro,
  extractDeclared,
  install,
  defaultRun: (ctx) => defaultRun(ctx),
  userRun: (command, ctx) => userRun(command, ctx),
  attribute,
  resolvedVersion: (dep, install) => topLevelVersion(install.details.tree, dep.name),
  declaringGroups: OTHER_GROUPS,
  componentFacts: npmComponentFacts,
  staticImports: (ctx, install) => npmStaticImports(ctx, install),
  manifestEditor: npmManifestEditor,
};
