/** C++'s facts for `envproof repro`: probes through the C library and coreutils; ctest cannot repeat a shuffle; no dated resolution. */
import type { EcosystemRepro } from '../repro-facts.js';

export const cppRepro: EcosystemRepro = {
  clockProbe: async () => 'date +%s',
  cpuProbe: async () => 'echo "sysconf(_SC_NPROCESSORS_ONLN) $(getconf _NPROCESSORS_ONLN)"; echo "sched_getaffinity (nproc) $(nproc)"',
  datedResolution: {
    supported: false,
    why: 'CMake has no package registry to resolve against a date (find_package takes what the system has, FetchContent what the project names)',
  },
  randomByDefault: [],
  testOrder: { ctest: { shuffled: () => ({ why: 'ctest --schedule-random takes no seed, so a shuffled run could not be repeated' }) } },
};
