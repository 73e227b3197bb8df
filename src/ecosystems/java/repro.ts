/** Java's facts for `envproof repro`: probes, Surefire's random order, what a test run needs first; no dated resolution. */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeProbe, type EcosystemRepro } from '../repro-facts.js';
import type { AuditContext } from '../types.js';
import { javaLayout } from './layout.js';
import { runMaven } from './maven.js';

/**
 * The class-load log directory (every JVM the command starts logs into it), and for Surefire a first `mvn test` with
 * the network: Maven resolves its build plugins, and Surefire its test provider, only as the tests run. Its reports are removed; its outcome is not compared.
 */
async function prepareMavenTests(ctx: AuditContext, runner: string | undefined): Promise<void> {
  const host = (inside: string) => ctx.sandbox.toHost(inside) ?? inside;
  await mkdir(host(javaLayout(ctx).classLoadLogs), { recursive: true });
  if (runner !== 'surefire') return;
  ctx.progress('fetching Maven\'s test plugins and Surefire\'s provider (mvn test, with the network)');
  await runMaven(ctx, { goals: ['test'], properties: { 'maven.test.failure.ignore': 'true' } }, true);
  await rm(host(path.posix.join(javaLayout(ctx).projectTarget, 'surefire-reports')), { recursive: true, force: true });
}

export const javaRepro: EcosystemRepro = {
  clockProbe: async (ctx) => `java ${await writeProbe(ctx, 'Clock.java', 'class Clock { public static void main(String[] a) { System.out.println(System.currentTimeMillis() / 1000); } }\n')}`,
  cpuProbe: async (ctx) => `java ${await writeProbe(ctx, 'Cpus.java', 'class Cpus { public static void main(String[] a) { System.out.println("Runtime.availableProcessors() " + Runtime.getRuntime().availableProcessors()); } }\n')}`,
  fakesMonotonicClock: true,
  datedResolution: {
    supported: false,
    why: 'Maven resolves the versions the POM names; a version range is resolved from repository metadata that Maven Central does not keep per date',
  },
  randomByDefault: [],
  testOrder: {
    surefire: {
      shuffled: (seed) => ({ options: { runnerArgs: ['-Dsurefire.runOrder=random', `-Dsurefire.runOrder.random.seed=${seed}`] }, label: 'surefire runOrder=random' }),
    },
  },
  prepareTests: prepareMavenTests,
  installNotShared: 'Maven keeps what it resolved in the sandbox\'s cache layers, which end with the sandbox, not in the work directory',
};
