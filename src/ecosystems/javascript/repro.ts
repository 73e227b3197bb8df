/** JavaScript's facts for `envproof repro`: probes, npm's `--before`, the runners' shuffles, package.json `engines.node`. */
import { shellQuote } from '../../core/shell.js';
import type { EcosystemRepro, RunnerOrder } from '../repro-facts.js';
import { nodeRangeSatisfied } from './engines.js';
import { objectField, readPackageJson } from './package-json.js';

const seeded = (label: string, args: (seed: number) => string[]): RunnerOrder => ({ shuffled: (seed) => ({ options: { runnerArgs: args(seed) }, label }) });

export const javascriptRepro: EcosystemRepro = {
  clockProbe: async () => 'node -e "console.log(Math.floor(Date.now() / 1000))"',
  cpuProbe: async () => `node -e ${shellQuote('const os = require("os"); console.log("os.cpus()", os.cpus().length); console.log("os.availableParallelism()", os.availableParallelism())')}`,
  datedResolution: {
    supported: true,
    // npm 9 takes `before` only on its command line (from the environment it fails on the string).
    start: async (asOf) => ({
      change: (req) => (req.argv[0] === 'npm' && (req.argv[1] === 'install' || req.argv[1] === 'ci') ? { ...req, argv: [...req.argv, `--before=${asOf.toISOString()}`] } : req),
      close: async () => {},
    }),
  },
  randomByDefault: [],
  testOrder: {
    jest: seeded('jest --randomize', (seed) => ['--randomize', `--seed=${seed}`]),
    vitest: seeded('vitest --sequence.shuffle', (seed) => ['--sequence.shuffle', `--sequence.seed=${seed}`]),
    'node-test': { shuffled: () => ({ why: "node --test has no shuffle option in Node 20, the environment's Node" }) },
  },
  runtimeRequirement: async (projectDir) => {
    const pkg = await readPackageJson(`${projectDir}/package.json`, projectDir).catch(() => undefined);
    const range = pkg ? objectField(pkg, 'engines')?.node : undefined;
    if (typeof range !== 'string') return undefined;
    return { tool: 'node', range, source: 'package.json engines.node', satisfiedBy: (version) => nodeRangeSatisfied(range, version) };
  },
};
