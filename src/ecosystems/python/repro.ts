/** Python's facts for `envproof repro`: probes, the dated index, the hash seed, pytest's shuffle plugins, requires-python. */
import { shellQuote } from '../../core/shell.js';
import type { EcosystemRepro, RunnerOrder } from '../repro-facts.js';
import { startDatedIndex } from './dated-index.js';
import { parseSpecifierSet, parseVersion, specifierContains } from './pep440.js';
import { readPyprojectTable } from './pyproject-table.js';
import { pythonTestDependencies } from './test-dependencies.js';

/** pytest shuffles only through a plugin: pytest-randomly (on by default once installed) or pytest-random-order. */
const pytestOrder: RunnerOrder = {
  shuffled: (seed, facts) => {
    if (facts.shuffler === 'randomly') return { options: { pytestOptions: [`-p randomly --randomly-seed=${seed}`] }, label: 'pytest-randomly' };
    if (facts.shuffler === 'random-order') return { options: { pytestOptions: [`-p random_order --random-order-seed=${seed}`] }, label: 'pytest-random-order' };
    return { why: 'pytest shuffles only with pytest-randomly or pytest-random-order, and the project installs neither' };
  },
  natural: (facts) => (facts.shuffler === 'randomly' ? { pytestOptions: ['-p no:randomly'] } : facts.shuffler === 'random-order' ? { pytestOptions: ['-p no:random_order'] } : {}),
  shufflesByDefault: (facts) => facts.shuffler === 'randomly',
};

const SHUFFLER_PROBE = 'import importlib.util as u; print("randomly" if u.find_spec("pytest_randomly") else "random-order" if u.find_spec("random_order") else "")';

export const pythonRepro: EcosystemRepro = {
  clockProbe: async () => 'python3 -c "import time; print(int(time.time()))"',
  cpuProbe: async () => `python3 -c ${shellQuote('import os; print("os.cpu_count()", os.cpu_count()); print("os.sched_getaffinity(0)", len(os.sched_getaffinity(0)))')}`,
  datedResolution: {
    supported: true,
    start: async (asOf) => {
      const index = await startDatedIndex(asOf);
      return { change: (req) => ({ ...req, env: { ...req.env, PIP_INDEX_URL: index.url } }), close: () => index.close() };
    },
  },
  // Python draws its string hash seed at every start unless PYTHONHASHSEED is set.
  randomByDefault: ['hash-seed'],
  testOrder: { pytest: pytestOrder },
  environmentFacts: async (runner, probe) => {
    if (runner !== 'pytest') return {};
    const found = (await probe(`python -c ${shellQuote(SHUFFLER_PROBE)}`)).trim();
    return found ? { shuffler: found } : {};
  },
  runtimeRequirement: async (projectDir) => {
    const range = (await readPyprojectTable(projectDir))?.project?.['requires-python'];
    if (typeof range !== 'string') return undefined;
    return {
      tool: 'python3',
      range,
      source: 'pyproject.toml requires-python',
      satisfiedBy: (version) => {
        const specs = parseSpecifierSet(range);
        const v = parseVersion(version);
        return specs && v ? specs.every((s) => specifierContains(s, v, version)) : undefined;
      },
    };
  },
  testDependencies: pythonTestDependencies,
  missingTool: /No module named '?([\w.]+)'?/,
};
