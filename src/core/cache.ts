import os from 'node:os';
import path from 'node:path';

/** Root of envproof's caches (package caches, root filesystems): ENVPROOF_CACHE_DIR or ~/.cache/envproof. */
export function cacheRoot(): string {
  return process.env.ENVPROOF_CACHE_DIR || path.join(os.homedir(), '.cache', 'envproof');
}
