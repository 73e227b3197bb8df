import path from 'node:path';
import { cacheRoot } from '../../core/cache.js';
import { sandboxCacheDir } from '../../sandbox/paths.js';

/**
 * Host directories of the Maven local repositories that sandboxes share across runs (never the user's ~/.m2;
 * the sandbox points Maven at its own through MAVEN_OPTS). D1 looks in them for parents and BOMs outside the tree.
 */
export function mavenRepositories(): string[] {
  return [path.join(cacheRoot(), 'm2'), path.join(sandboxCacheDir(), 'm2')];
}
