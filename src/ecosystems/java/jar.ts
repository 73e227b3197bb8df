import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';

/** `app.jar!/BOOT-INF/lib/x.jar` refers to a jar nested in another (Spring Boot); a plain path to a file. */
export function splitNested(ref: string): { outer: string; inner?: string } {
  const bang = ref.indexOf('!/');
  return bang < 0 ? { outer: ref } : { outer: ref.slice(0, bang), inner: ref.slice(bang + 2) };
}

async function jarBytes(ref: string): Promise<Uint8Array> {
  const { outer, inner } = splitNested(ref);
  const data = new Uint8Array(await readFile(outer));
  if (inner === undefined) return data;
  const nested = unzipSync(data, { filter: (f) => f.name === inner })[inner];
  if (!nested) throw new Error(`${inner} is not in ${outer}`);
  return nested;
}

/** Text entries of a jar (or nested jar) whose names pass `wanted`; only those entries are inflated. */
export async function readJarEntries(ref: string, wanted: (name: string) => boolean): Promise<Map<string, string>> {
  const entries = unzipSync(await jarBytes(ref), { filter: (f) => wanted(f.name) });
  return new Map(Object.entries(entries).map(([name, bytes]) => [name, strFromU8(bytes)]));
}

/** Every entry name of a jar, read from its central directory without inflating anything. */
export async function listJarEntries(ref: string): Promise<string[]> {
  const names: string[] = [];
  unzipSync(await jarBytes(ref), {
    filter: (f) => {
      names.push(f.name);
      return false;
    },
  });
  return names;
}

/** Main attributes of a JAR manifest; continuation lines (starting with a space) are joined. */
export function parseManifest(text: string): Map<string, string> {
  const unfolded = text.replace(/\r\n?/g, '\n').replace(/\n /g, '');
  const attributes = new Map<string, string>();
  for (const line of unfolded.split('\n')) {
    if (line === '') break; // the main section ends at the first blank line
    const colon = line.indexOf(': ');
    if (colon > 0) attributes.set(line.slice(0, colon), line.slice(colon + 2).trim());
  }
  return attributes;
}

export interface JarIdentity {
  groupId?: string;
  artifactId: string;
  version?: string;
  how: 'pom.properties' | 'file-name';
}

function parseProperties(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([^#!=:\s]+)\s*[=:]\s*(.*?)\s*$/.exec(line);
    if (m) props.set(m[1]!, m[2]!);
  }
  return props;
}

/** `jackson-core-2.17.2.jar` → jackson-core 2.17.2: the version starts at the first `-` followed by a digit. */
export function identityFromFileName(file: string): JarIdentity {
  const base = path.basename(file).replace(/\.jar$/i, '');
  const m = /^(.+?)-(\d.*)$/.exec(base);
  return m ? { artifactId: m[1]!, version: m[2]!, how: 'file-name' } : { artifactId: base, how: 'file-name' };
}

const POM_PROPERTIES = /^META-INF\/maven\/[^/]+\/[^/]+\/pom\.properties$/;

/**
 * groupId:artifactId:version of a jar (or nested jar) from META-INF/maven/.../pom.properties. A jar that bundles
 * several (a shaded jar) is identified by the one matching its file name, else by its file name.
 */
export async function identifyJar(file: string): Promise<JarIdentity> {
  const fromName = identityFromFileName(file);
  let entries: Map<string, string>;
  try {
    entries = await readJarEntries(file, (n) => POM_PROPERTIES.test(n));
  } catch {
    return fromName;
  }
  const candidates = [...entries.values()].map(parseProperties).map((p) => ({
    groupId: p.get('groupId'),
    artifactId: p.get('artifactId'),
    version: p.get('version'),
  }));
  const usable = candidates.filter((c): c is { groupId: string; artifactId: string; version: string | undefined } => Boolean(c.groupId && c.artifactId));
  const chosen =
    usable.length === 1 ? usable[0] : usable.find((c) => c.artifactId === fromName.artifactId && (!c.version || c.version === fromName.version));
  return chosen ? { groupId: chosen.groupId, artifactId: chosen.artifactId, ...(chosen.version ? { version: chosen.version } : {}), how: 'pom.properties' } : fromName;
}
