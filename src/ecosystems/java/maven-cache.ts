import os from 'node:os';
import path from 'node:path';

/**
 * The Maven local repository envproof shares across runs (never the user's ~/.m2): downloads are reused, while
 * every layer still comes from Maven's answer about one project. ENVPROOF_CACHE_DIR moves it.
 */
export function mavenRepository(): string {
  const root = process.env.ENVPROOF_CACHE_DIR || path.join(os.homedir(), '.cache', 'envproof');
  return path.join(root, 'm2');
}
