/**
 * pip's cache reaches no other run. Its HTTP cache holds serialized responses filed under a hash of the URL,
 * index pages included, and `wheels/` holds wheels built by running packages' own build code; envproof has no
 * check that ties such an entry to what the registry serves, so every file of pip's layer stays in the run's
 * private layer and each run downloads what it installs (what an earlier shared cache already holds is read).
 */
import type { CachePublisher } from '../../sandbox/cache-layers.js';
import { layerFiles } from '../../sandbox/cache-files.js';

export const pythonCachePublisher: CachePublisher = {
  dir: 'pip',
  async publish(layer) {
    return { published: 0, rejected: (await layerFiles(layer)).length };
  },
};
