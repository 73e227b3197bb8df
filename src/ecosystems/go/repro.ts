/** Go's facts for `envproof repro`: probes (compiled with `go run`), go test -shuffle, the go.mod `go` line; no dated resolution. */
import { versionAtLeast } from '../../core/dotted-version.js';
import { readProjectFileIfExists } from '../../core/safe-read.js';
import { writeProbe, type EcosystemRepro } from '../repro-facts.js';
import { GO_MANIFEST } from './declared.js';
import { parseGoMod } from './gomod.js';

export const goRepro: EcosystemRepro = {
  clockProbe: async (ctx) => `go run ${await writeProbe(ctx, 'clock.go', 'package main\n\nimport (\n\t"fmt"\n\t"time"\n)\n\nfunc main() { fmt.Println(time.Now().Unix()) }\n')}`,
  clockLimit: 'Go reads the clock from the kernel (vDSO), not through libc, so libfaketime cannot shift it',
  cpuProbe: async (ctx) => `go run ${await writeProbe(ctx, 'cpus.go', 'package main\n\nimport (\n\t"fmt"\n\t"runtime"\n)\n\nfunc main() { fmt.Println("runtime.NumCPU()", runtime.NumCPU()) }\n')}`,
  datedResolution: {
    supported: false,
    why: "Go's minimal version selection builds with the versions go.mod requires, the same on any date, and the module proxy has no query by date",
  },
  randomByDefault: [],
  testOrder: { 'go-test': { shuffled: (seed) => ({ options: { runnerArgs: [`-shuffle=${seed}`] }, label: 'go test -shuffle' }) } },
  runtimeRequirement: async (projectDir) => {
    const text = await readProjectFileIfExists(projectDir, GO_MANIFEST);
    let go: string | undefined;
    try {
      go = text === undefined ? undefined : parseGoMod(text).go;
    } catch {
      return undefined; // the install says what is wrong with go.mod
    }
    return go === undefined ? undefined : { tool: 'go', range: `>= ${go}`, source: 'go.mod go line', satisfiedBy: (version) => versionAtLeast(version, go) };
  },
};
