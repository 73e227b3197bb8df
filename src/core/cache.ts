import os from 'node:os';
import path from 'node:path';
import { goFacts } from '../ecosystems/go/facts.js';

/** Root of envproof's caches (package caches, root filesystems): ENVPROOF_CACHE_DIR or ~/.cache/envproof. */
export function cacheRoot(): string {
  return process.env.ENVPROOF_CACHE_DIR || path.join(os.homedir(), '.cache', 'envproof');
}

/**
 * Package caches shared across runs. They only make downloads faster: every layer comes from the package
 * manager's answer about one run's own environment, never from what a cache contains.
 */
export function packageCacheEnv(root: string): Record<string, string> {
  return {
    PIP_CACHE_DIR: path.join(root, 'pip'),
    npm_config_cache: path.join(root, 'npm'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    MAVEN_OPTS: `-Dmaven.repo.local=${path.join(root, 'm2')}`,
    ...goFacts.caches.env(root),
  };
}
