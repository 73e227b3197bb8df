import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { loadPom, PomModel } from './pom-model.js';
import { descendantTexts, elementsAt, text } from './pom-xml.js';
import { mavenRepositories } from './maven-cache.js';
import { parseManifest, readJarEntries } from './jar.js';

export interface MainClass {
  className: string;
  /** Where it was found, for the report. */
  reason: string;
}

/** Jars the build produced, without the side artifacts (sources, javadoc, tests, shade's original-*). */
async function builtJars(targetDir: string): Promise<string[]> {
  const names = await readdir(targetDir).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith('.jar') && !n.startsWith('original-') && !/-(sources|javadoc|tests|test-sources)\.jar$/.test(n))
    .sort()
    .map((n) => path.join(targetDir, n));
}

async function fromJarManifest(targetDir: string): Promise<MainClass | undefined> {
  for (const jar of await builtJars(targetDir)) {
    const entries = await readJarEntries(jar, (n) => n === 'META-INF/MANIFEST.MF').catch(() => new Map<string, string>());
    const manifest = entries.get('META-INF/MANIFEST.MF');
    if (!manifest) continue;
    const attributes = parseManifest(manifest);
    // Spring Boot's launcher is the Main-Class; it names the application class in Start-Class.
    for (const attribute of ['Start-Class', 'Main-Class']) {
      const className = attributes.get(attribute);
      if (className) return { className, reason: `${attribute} of ${path.basename(jar)}` };
    }
  }
  return undefined;
}

/** Plugins whose configuration names the main class, in the order they are trusted. */
const PLUGINS_WITH_MAIN_CLASS = ['maven-shade-plugin', 'maven-assembly-plugin', 'maven-jar-plugin', 'exec-maven-plugin', 'spring-boot-maven-plugin'];

async function fromPluginConfiguration(pomFile: string): Promise<MainClass | undefined> {
  const model = new PomModel(await loadPom(pomFile, { repositories: mavenRepositories(), notes: [] }));
  const project = model.pom.project;
  const plugins = [...elementsAt(project, ['build', 'plugins', 'plugin']), ...elementsAt(project, ['build', 'pluginManagement', 'plugins', 'plugin'])];
  for (const wanted of PLUGINS_WITH_MAIN_CLASS) {
    for (const plugin of plugins.filter((p) => text(p, 'artifactId') === wanted)) {
      for (const raw of descendantTexts(plugin, 'mainClass')) {
        const r = model.interpolate(raw);
        if (r.problems.length === 0 && r.value) return { className: r.value, reason: `<mainClass> of ${wanted} in pom.xml` };
      }
    }
  }
  return undefined;
}

/** The class to run: the built jar's manifest, else the plugin configuration; undefined when neither names one. */
export async function findMainClass(hostProjectDir: string): Promise<MainClass | undefined> {
  return (await fromJarManifest(path.join(hostProjectDir, 'target'))) ?? (await fromPluginConfiguration(path.join(hostProjectDir, 'pom.xml')));
}
