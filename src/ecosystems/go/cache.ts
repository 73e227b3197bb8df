/**
 * The go build cache reaches no other sandboxed run: its entries are compiler output keyed by the hash of their
 * inputs, and nothing ties an entry to the inputs it claims; a build (cgo runs the C compiler on the project's
 * code) could plant one. So in a sandbox it stays in the audit's own layer, as pip's cache does; only the host
 * backend, which isolates nothing, shares it.
 */
import type { CachePublisher } from '../../sandbox/cache-layers.js';
import { layerFiles } from '../../sandbox/cache-files.js';
import { GO_BUILD_CACHE } from './go-env.js';

export const goCachePublisher: CachePublisher = {
  dir: GO_BUILD_CACHE,
  async publish(layer) {
    return { published: 0, rejected: (await layerFiles(layer)).length };
  },
};
