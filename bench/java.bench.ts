/**
 * Cost of tracing a Java run: the gson/jackson fixture (test/ecosystems/java/fixtures/gson-jackson) is installed and built
 * once, then its default command is run, interleaved, with and without tracing (the default tracer, see
 * tracers.bench.ts for both side by side) and with and without the
 * class-load log (-Xlog:class+load). Ratios are of medians over RUNS runs each; on a busy machine compare the minima too.
 */
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { javaEcosystem as java } from '../src/ecosystems/java/index.js';
import type { AuditContext } from '../src/ecosystems/types.js';
import { HostSandbox } from '../src/sandbox/host.js';
import { auditContext } from '../src/ecosystems/context.js';
import { traceRun } from '../src/trace/index.js';

const RUNS = 9;
const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test', 'java', 'fixtures', 'gson-jackson');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const root = await mkdtemp(path.join(os.tmpdir(), 'envproof-bench-java-'));
try {
  const projectDir = path.join(root, 'project');
  await cp(fixture, projectDir, { recursive: true });
  await mkdir(path.join(root, 'env'));
  const ctx: AuditContext = auditContext(new HostSandbox('java', root), { timeoutMs: 600_000, installTimeoutMs: 600_000, progress: () => {} });
  const install = await java.install(ctx);
  await java.build!(ctx, install);
  const withLog = (await java.defaultRun(ctx, install)).argv;
  const withoutLog = withLog.filter((a) => !a.startsWith('-Xlog:'));
  const logDir = path.join(ctx.envDir, 'java', 'class-load');

  const exec = (argv: string[]) => ctx.sandbox.exec({ argv, cwd: projectDir, timeoutMs: 120_000, network: false });
  const traced = (argv: string[]) => traceRun(ctx.sandbox, { argv, cwd: projectDir, timeoutMs: 120_000, network: false });
  const modes: Record<string, () => Promise<unknown>> = {
    untraced: () => exec(withoutLog),
    'untraced + class-load log': () => exec(withLog),
    traced: () => traced(withoutLog),
    'traced + class-load log (the audit run)': () => traced(withLog),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
  await exec(withoutLog); // warm the page cache
  for (let i = 0; i < RUNS; i++) {
    for (const [name, run] of Object.entries(modes)) {
      const t = performance.now();
      await run();
      times[name]!.push(performance.now() - t);
    }
  }
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<keyof typeof modes, number>;
  for (const [name, ms] of Object.entries(m)) {
    console.log(`${name.padEnd(42)} median ${ms.toFixed(0)} ms, min ${Math.min(...times[name]!).toFixed(0)} ms over ${RUNS} runs`);
  }
  console.log(`tracing overhead, traced ÷ untraced (no log):          ${(m.traced! / m.untraced!).toFixed(2)}`);
  console.log(`tracing overhead, audit run ÷ untraced with log:       ${(m['traced + class-load log (the audit run)']! / m['untraced + class-load log']!).toFixed(2)}`);
  console.log(`class-load log cost, with ÷ without (untraced):        ${(m['untraced + class-load log']! / m.untraced!).toFixed(2)}`);
  console.log(`class-load log cost, with ÷ without (traced):          ${(m['traced + class-load log (the audit run)']! / m.traced!).toFixed(2)}`);

  const files = (await traced(withLog)).files;
  const t = performance.now();
  const d3 = await java.attribute(files, ctx, install);
  const logs = await readdir(logDir);
  console.log(`attribution (${files.size} traced paths, ${logs.length} class-load logs → ${d3.traced.length} jars): ${(performance.now() - t).toFixed(0)} ms`);
} finally {
  await rm(root, { recursive: true, force: true });
}
