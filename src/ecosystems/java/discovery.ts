/**
 * Dependency jars the JVM loads by discovery rather than by a class reference: service providers
 * (`META-INF/services/<interface>`, read by ServiceLoader: ImageIO plug-ins, JDBC drivers, slf4j 2 providers) and
 * slf4j 1 bindings (`org/slf4j/impl/StaticLoggerBinder.class`, found by name). Keyed by artifactId, as the layers.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Discovery } from '../outputs.js';
import { identifyJar, listJarEntries } from './jar.js';

/** The discovery rule a jar's entries match, if any. */
export function jarDiscovery(jar: string, entries: readonly string[]): Discovery | undefined {
  const services = entries.filter((e) => /^META-INF\/services\/[^/]+$/.test(e));
  if (services.length) {
    const names = services.map((e) => e.slice('META-INF/services/'.length)).sort();
    return { rule: 'java-service-provider', evidence: `${jar} provides ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''} (META-INF/services)` };
  }
  if (entries.includes('org/slf4j/impl/StaticLoggerBinder.class')) return { rule: 'slf4j-binding', evidence: `${jar} holds org.slf4j.impl.StaticLoggerBinder, the binding slf4j 1 finds by name` };
  return undefined;
}

/** Every jar of the dependency directory (on the host) that is loaded by discovery, by artifactId. */
export async function discoveredJars(hostDir: string): Promise<Record<string, Discovery>> {
  const out: Record<string, Discovery> = {};
  for (const name of (await readdir(hostDir).catch(() => [] as string[])).filter((n) => n.endsWith('.jar')).sort()) {
    const file = path.join(hostDir, name);
    const found = jarDiscovery(name, await listJarEntries(file).catch(() => [] as string[]));
    if (found) out[(await identifyJar(file)).artifactId] ??= found;
  }
  return out;
}
