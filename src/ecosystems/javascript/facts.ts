import path from 'node:path';
import { paperName, type EcosystemFacts } from '../facts.js';
import { javascriptCachePublisher } from './cache.js';
import { installNodeRuntime, NODE_RUNTIME, NODE_RUNTIME_ID } from './node-runtime.js';

function parseNpmGlobal(stdout: string): Record<string, string> {
  const tree = JSON.parse(stdout || '{}') as { dependencies?: Record<string, { version?: string }> };
  return Object.fromEntries(Object.entries(tree.dependencies ?? {}).map(([n, d]) => [n, d.version ?? '']));
}

const NODE_FIX = `put Node.js 20 with npm on the PATH, ${NODE_RUNTIME.node.version} as in the JavaScript environment (Debian bookworm's nodejs is 18)`;

export const javascriptFacts: EcosystemFacts = {
  id: 'javascript',
  displayName: 'JavaScript',
  projectKind: 'JavaScript (npm)',
  manifestFiles: ['package.json'],
  prompt: { manifest: 'package.json', runtime: 'Node.js 20 (LTS)', envgapFolder: 'javascript_prompts', promise: [{ check: 'node', atLeast: '20' }, { check: 'npm' }] },
  recipe: {
    // Node.js and npm come from the npm registry (node-runtime.ts): Debian bookworm's nodejs is 18.
    debianPackages: [],
    baseline: [{ manager: 'npm', argv: ['npm', 'ls', '--global', '--depth=0', '--json'], parse: parseNpmGlobal }],
    provision: { id: NODE_RUNTIME_ID, install: installNodeRuntime },
  },
  caches: {
    dirs: ['npm'],
    env: (root) => ({
      npm_config_cache: path.join(root, 'npm'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    }),
    publishers: [javascriptCachePublisher],
  },
  doctor: [
    { name: 'node', argv: ['node', '--version'], version: /v(\S+)/, fix: NODE_FIX },
    { name: 'npm', argv: ['npm', '--version'], version: /(\d\S*)/, fix: NODE_FIX },
  ],
  skipDirs: ['node_modules'],
  readmeSetupCommand: /^(?:npm (install|ci|i)\b|yarn( install)?$)/,
  failurePatterns: [
    { pattern: /Error: Cannot find module '[^./]/, class: 'missing-dependency' },
    { pattern: /ERR_MODULE_NOT_FOUND/, class: 'missing-dependency' },
  ],
  normaliseName: (raw) => paperName(raw),
};
