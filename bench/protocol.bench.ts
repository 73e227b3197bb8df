/**
 * The protocol on a replay of recorded projects: 8 tasks × every language, with --jobs 1 and --jobs 2.
 * Prints runs per minute, the speed-up, and where the time goes (install, build, run, analysis, envproof).
 * A warm-up pass fills the package caches first, so both measured passes see the same caches.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReplayAgent } from '../src/agents/replay.js';
import type { EcosystemId } from '../src/core/types.js';
import { ecosystems } from '../src/ecosystems/index.js';
import { planRuns, runMatrix } from '../src/protocol/matrix.js';
import { ResultsStore } from '../src/store/store.js';
import { renderPrompt } from '../src/tasks/prompt.js';
import type { Task, TaskSuite } from '../src/tasks/types.js';

const TASKS = 8;

function project(language: EcosystemId, id: string): Record<string, string> {
  switch (language) {
    case 'python':
      return { 'requirements.txt': 'six==1.16.0\n', 'main.py': `import six\nprint("${id}", six.PY3)\n` };
    case 'javascript':
      return {
        'package.json': JSON.stringify({ name: `bench-${id.replace('_', '-')}`, version: '1.0.0', main: 'index.js', dependencies: { 'is-number': '7.0.0' } }),
        'index.js': `console.log('${id}', require('is-number')(5));\n`,
      };
    case 'cpp':
      return {
        'CMakeLists.txt': `cmake_minimum_required(VERSION 3.16)\nproject(bench_${id} CXX)\nfind_package(ZLIB REQUIRED)\nadd_executable(app main.cpp)\ntarget_link_libraries(app ZLIB::ZLIB)\n`,
        'main.cpp': `#include <zlib.h>\n#include <cstdio>\nint main() { std::printf("${id} %s\\n", zlibVersion()); }\n`,
      };
    case 'java':
      return {
        'pom.xml': `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>bench</groupId><artifactId>bench-${id.replace('_', '-')}</artifactId><version>1.0.0</version>
  <properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies><dependency><groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>2.10.1</version></dependency></dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version>
      <configuration><archive><manifest><mainClass>bench.Main</mainClass></manifest></archive></configuration></plugin>
  </plugins></build>
</project>
`,
        'src/main/java/bench/Main.java': `package bench;\npublic class Main { public static void main(String[] a) { System.out.println(new com.google.gson.Gson().toJson("${id}")); } }\n`,
      };
    case 'go':
      return {
        'go.mod': `module example.com/bench${id.replace('_', '')}\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n`,
        'main.go': `package main\n\nimport (\n\t"fmt"\n\n\t"github.com/google/uuid"\n)\n\nfunc main() { fmt.Println("${id}", uuid.NewSHA1(uuid.NameSpaceURL, []byte("${id}"))) }\n`,
      };
    default:
      throw new Error(`no bench project for ${language}`);
  }
}

const root = mkdtempSync(path.join(os.tmpdir(), 'envproof-bench-protocol-'));
const languages = ecosystems().map((e) => e.id);
const tasks: Task[] = Array.from({ length: TASKS }, (_, i) => {
  const id = `p_${String(i + 1).padStart(2, '0')}`;
  return { id, title: `Bench ${id}`, domain: 'Benchmark', complexity: 'Medium', description: 'A recorded project.', functionalRequirements: ['Print a line'] };
});
for (const t of tasks) {
  for (const lang of languages) {
    for (const [rel, content] of Object.entries(project(lang, t.id))) {
      const file = path.join(root, 'replay', t.id, lang, '0', rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
}
const suite: TaskSuite = { name: 'bench', tasks, prompt: renderPrompt };
const agent = new ReplayAgent('replay', path.join(root, 'replay'));
const plans = planRuns({ agents: [agent], suite, tasks, languages, trials: 1, variant: 'explicit' });

async function pass(jobs: number, label: string) {
  const file = path.join(root, `${label}.db`);
  const store = ResultsStore.open(file);
  try {
    const summary = await runMatrix(plans, store, {
      jobs, repairs: 0, sandbox: 'host', runTimeoutSec: 120, agentTimeoutSec: 60, infraRetries: 0, retryDelaySec: 0, onProgress: () => {},
    });
    const phases: Record<string, number> = {};
    for (const run of store.allRuns()) for (const a of store.attempts(run)) for (const [k, v] of Object.entries(a.phasesMs ?? {})) phases[k] = (phases[k] ?? 0) + v;
    return { summary, phases };
  } finally {
    store.close();
  }
}

try {
  console.log(`${plans.length} runs: ${TASKS} tasks × ${languages.join(', ')}; sandbox host`);
  await pass(2, 'warm-up');
  const one = await pass(1, 'jobs1');
  const two = await pass(2, 'jobs2');
  const perMinute = (s: { total: number; durationMs: number }) => (s.total / (s.durationMs / 60_000)).toFixed(1);
  for (const [label, p] of [['--jobs 1', one], ['--jobs 2', two]] as const) {
    const c = p.summary.counts;
    console.log(`${label}: ${(p.summary.durationMs / 1000).toFixed(1)} s, ${perMinute(p.summary)} runs/min (${c.succeeded} succeeded, ${c.failed} failed)`);
  }
  console.log(`speed-up --jobs 2 ÷ --jobs 1: ${(one.summary.durationMs / two.summary.durationMs).toFixed(2)}×`);
  const total = Object.values(one.phases).reduce((a, b) => a + b, 0);
  const share = Object.entries(one.phases)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${((100 * v) / total).toFixed(1)}%`)
    .join(', ');
  console.log(`time shares (--jobs 1, summed over attempts): ${share}`);
  console.log('("run" is the program under strace; "tracing" reading its log; "analysis" D1 parsing, attribution and metrics; "envproof" snapshotting and recording)');
} finally {
  rmSync(root, { recursive: true, force: true });
}
