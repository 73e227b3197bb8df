import path from 'node:path';
import type { Dependency } from '../../core/types.js';
import type { AttributionResult, AuditContext } from '../types.js';
import { readClassLoadLogs } from './class-load-log.js';
import { identifyJar } from './jar.js';
import { javaLayout } from './layout.js';

/** The two Java D3 layers: jars opened during the run (the paper's), jars classes were loaded from (the default). */
export const JAVA_ATTRIBUTIONS = ['loaded', 'opened'] as const;
export type JavaAttribution = (typeof JAVA_ATTRIBUTIONS)[number];

/** The JDK's own directory: its jars are not dependencies. */
async function javaHome(ctx: AuditContext): Promise<string | undefined> {
  const r = await ctx.sandbox.exec({ argv: ['java', '-XshowSettings:properties', '-version'], cwd: ctx.envDir, timeoutMs: 60_000, network: false });
  return /^\s*java\.home = (.+)$/m.exec(r.stderr)?.[1]?.trim();
}

/**
 * D3 for Java. `traced` is the class-level layer when a class-load log exists (the run started a JVM with the
 * logging option), else the opened jars; both are in `alternatives` so the caller can choose (`--java-attribution`).
 */
export async function attributeJava(files: ReadonlySet<string>, ctx: AuditContext): Promise<AttributionResult> {
  const layout = javaLayout(ctx);
  const jdk = await javaHome(ctx);
  // The project's own jars lie directly in target/; dependencies a build copies to target/lib/ and the like still count.
  const isDependencyJar = (p: string) =>
    p.toLowerCase().endsWith('.jar') && !(jdk && p.startsWith(`${jdk}/`)) && path.posix.dirname(p) !== layout.projectTarget;

  const identities = new Map<string, Dependency>();
  const identify = async (jar: string): Promise<Dependency> => {
    let dep = identities.get(jar);
    if (!dep) {
      const id = await identifyJar(ctx.sandbox.toHost(jar) ?? jar);
      dep = { name: id.artifactId, ...(id.version ? { version: id.version } : {}), ...(id.groupId ? { id: `${id.groupId}:${id.artifactId}` } : {}), source: jar };
      identities.set(jar, dep);
    }
    return dep;
  };

  const evidence: Record<string, string[]> = {};
  const cite = (name: string, line: string) => (evidence[name] ??= []).push(line);

  const hostLogs = ctx.sandbox.toHost(layout.classLoadLogs);
  const counts = hostLogs ? await readClassLoadLogs(hostLogs) : null;
  const loaded: Dependency[] = [];
  for (const [jar, count] of [...(counts ?? new Map())].filter(([jar]) => isDependencyJar(jar))) {
    const dep = await identify(jar);
    loaded.push(dep);
    cite(dep.name, `${jar}: ${count.classes} classes loaded (e.g. ${count.example})`);
  }

  const opened: Dependency[] = [];
  for (const jar of [...files].filter(isDependencyJar).sort()) {
    const dep = await identify(jar);
    opened.push(dep);
    if (counts && !counts.has(jar)) cite(dep.name, `${jar}: opened, but no class was loaded from it`);
    else if (!counts) cite(dep.name, `${jar}: opened`);
  }

  return {
    traced: counts ? loaded : opened,
    evidence,
    alternatives: counts ? { opened, loaded } : { opened },
  };
}

/** The D3 layer a caller asked for: `opened` gives the paper-compatible figures. */
export function javaTracedLayer(result: AttributionResult, attribution: JavaAttribution): Dependency[] {
  return result.alternatives?.[attribution] ?? result.traced;
}
