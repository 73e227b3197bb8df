import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Dependency } from '../../core/types.js';
import type { AttributionResult, AuditContext, TracedDependency } from '../types.js';
import { readClassLoadLogs } from './class-load-log.js';
import { identifyJar, listJarEntries, splitNested } from './jar.js';
import { javaLayout } from './layout.js';

/** The two Java D3 layers: jars opened during the run (the paper's), jars classes were loaded from (the default). */
export const JAVA_ATTRIBUTIONS = ['loaded', 'opened'] as const;
export type JavaAttribution = (typeof JAVA_ATTRIBUTIONS)[number];

const classCount = (n: number) => `${n} ${n === 1 ? 'class' : 'classes'}`;

/** The JDK's own directory: its jars are not dependencies. */
async function javaHome(ctx: AuditContext): Promise<string | undefined> {
  const r = await ctx.sandbox.exec({ argv: ['java', '-XshowSettings:properties', '-version'], cwd: ctx.envDir, timeoutMs: 60_000, network: false });
  return /^\s*java\.home = (.+)$/m.exec(r.stderr)?.[1]?.trim();
}

/** Class file name → the copied dependency jar (path as seen inside) that holds it. */
export async function dependencyClassIndex(ctx: AuditContext): Promise<Map<string, string>> {
  const inside = javaLayout(ctx).dependencyJars;
  const hostDir = ctx.sandbox.toHost(inside);
  const index = new Map<string, string>();
  if (!hostDir) return index;
  for (const name of (await readdir(hostDir).catch(() => [] as string[])).filter((n) => n.endsWith('.jar')).sort()) {
    for (const entry of await listJarEntries(path.join(hostDir, name)).catch(() => [] as string[])) {
      if (entry.endsWith('.class') && !index.has(entry)) index.set(entry, path.posix.join(inside, name));
    }
  }
  return index;
}

/**
 * D3 for Java. `traced` is the class-level layer when a class-load log exists (the run started a JVM with the
 * logging option), else the opened jars; both are in `alternatives` so the caller can choose (`--java-attribution`).
 */
export async function attributeJava(files: ReadonlySet<string>, ctx: AuditContext): Promise<AttributionResult> {
  const layout = javaLayout(ctx);
  const jdk = await javaHome(ctx);
  const isJar = (p: string) => {
    const { outer } = splitNested(p);
    return outer.toLowerCase().endsWith('.jar') && !(jdk && outer.startsWith(`${jdk}/`));
  };
  // The project's own jars lie directly in target/; dependencies a build copies to target/lib/ (or nests in a
  // Spring Boot jar) count.
  const isProjectJar = (p: string) => path.posix.dirname(p) === layout.projectTarget;
  const isDependencyJar = (p: string) => isJar(p) && !isProjectJar(p);

  const identities = new Map<string, TracedDependency>();
  const identify = async (jar: string): Promise<TracedDependency> => {
    let dep = identities.get(jar);
    if (!dep) {
      const { outer, inner } = splitNested(jar);
      const hostOuter = ctx.sandbox.toHost(outer) ?? outer;
      const id = await identifyJar(inner === undefined ? hostOuter : `${hostOuter}!/${inner}`);
      dep = { name: id.artifactId, ...(id.version ? { version: id.version } : {}), ...(id.groupId ? { id: `${id.groupId}:${id.artifactId}` } : {}), source: jar, files: [jar] };
      identities.set(jar, dep);
    }
    return dep;
  };

  const evidence: Record<string, string[]> = {};
  const cite = (name: string, line: string) => (evidence[name] ??= []).push(line);

  const hostLogs = ctx.sandbox.toHost(layout.classLoadLogs);
  const byJar = hostLogs ? await readClassLoadLogs(hostLogs) : null;
  const loaded: TracedDependency[] = [];
  const fromProjectJars: { jar: string; className: string }[] = [];
  for (const [jar, loadedClasses] of byJar ?? []) {
    if (isDependencyJar(jar)) {
      const dep = await identify(jar);
      loaded.push(dep);
      cite(dep.name, `${jar}: ${classCount(loadedClasses.length)} loaded (e.g. ${loadedClasses[0]})`);
    } else if (isJar(jar)) {
      fromProjectJars.push(...loadedClasses.map((className) => ({ jar, className })));
    }
  }
  // A fat JAR run with --run: its bundled classes are attributed to the dependency jar holding the same class file.
  if (fromProjectJars.length) {
    const index = await dependencyClassIndex(ctx);
    const bundled = new Map<string, { from: string; classes: string[] }>();
    for (const { jar, className } of fromProjectJars) {
      const owner = index.get(`${className.replace(/\./g, '/')}.class`);
      if (!owner) continue; // the project's own class
      const entry = bundled.get(owner) ?? { from: jar, classes: [] };
      entry.classes.push(className);
      bundled.set(owner, entry);
    }
    for (const [owner, { from, classes: names }] of bundled) {
      const dep = await identify(owner);
      loaded.push(dep);
      cite(dep.name, `${from}: ${classCount(names.length)} of ${path.posix.basename(owner)} loaded from the project's bundled jar (e.g. ${names[0]})`);
    }
  }

  const opened: TracedDependency[] = [];
  for (const jar of [...files].filter(isDependencyJar).sort()) {
    const dep = await identify(jar);
    opened.push(dep);
    if (byJar && !byJar.has(jar)) cite(dep.name, `${jar}: opened, but no class was loaded from it`);
    else if (!byJar) cite(dep.name, `${jar}: opened`);
  }

  return {
    traced: byJar ? loaded : opened,
    evidence,
    alternatives: byJar ? { opened, loaded } : { opened },
  };
}

/** The D3 layer a caller asked for: `opened` gives the paper-compatible figures. */
export function javaTracedLayer(result: AttributionResult, attribution: JavaAttribution): Dependency[] {
  return result.alternatives?.[attribution] ?? result.traced;
}
