import path from 'node:path';
import { paperName, type EcosystemFacts } from '../facts.js';
import { javascriptCachePublisher } from './cache.js';

const APT = 'apt-get update && apt-get install -y';

function parseNpmGlobal(stdout: string): Record<string, string> {
  const tree = JSON.parse(stdout || '{}') as { dependencies?: Record<string, { version?: string }> };
  return Object.fromEntries(Object.entries(tree.dependencies ?? {}).map(([n, d]) => [n, d.version ?? '']));
}

export const javascriptFacts: EcosystemFacts = {
  id: 'javascript',
  displayName: 'JavaScript',
  projectKind: 'JavaScript (npm)',
  manifestFiles: ['package.json'],
  prompt: { manifest: 'package.json', runtime: 'Node.js 20 (LTS)', envgapFolder: 'javascript_prompts' },
  recipe: {
    debianPackages: ['nodejs', 'npm'],
    baseline: [{ manager: 'npm', argv: ['npm', 'ls', '--global', '--depth=0', '--json'], parse: parseNpmGlobal }],
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
    { name: 'node', argv: ['node', '--version'], version: /v(\S+)/, fix: `${APT} nodejs` },
    { name: 'npm', argv: ['npm', '--version'], version: /(\d\S*)/, fix: `${APT} npm` },
  ],
  skipDirs: ['node_modules'],
  readmeSetupCommand: /^(?:npm (install|ci|i)\b|yarn( install)?$)/,
  failurePatterns: [
    { pattern: /Error: Cannot find module '[^./]/, class: 'missing-dependency' },
    { pattern: /ERR_MODULE_NOT_FOUND/, class: 'missing-dependency' },
  ],
  normaliseName: (raw) => paperName(raw),
};
