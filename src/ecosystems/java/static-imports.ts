/**
 * Static imports of a Maven project, read from what javac wrote: every class a compiled class of target/classes
 * refers to (its constant pool's class entries and the types in its descriptors), mapped to the dependency jar
 * that holds that class. The location is the import in the source file that names the class's package, when there
 * is one, else the class file.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isFile } from '../../core/fs.js';
import type { StaticImports } from '../outputs.js';
import type { AuditContext } from '../types.js';
import { dependencyClassIndex } from './attribute.js';
import { discoveredJars } from './discovery.js';
import { identifyJar } from './jar.js';
import { javaLayout } from './layout.js';
import { readProjectFile } from '../../core/safe-read.js';

/** Internal names (`com/google/gson/Gson`) of the classes a class file refers to. */
export function referencedClasses(bytes: Uint8Array): Set<string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 10 || view.getUint32(0) !== 0xcafebabe) throw new Error('not a class file');
  const count = view.getUint16(8);
  const utf8 = new Map<number, string>();
  const classIndexes: number[] = [];
  let at = 10;
  for (let i = 1; i < count; i++) {
    const tag = bytes[at]!;
    at++;
    if (tag === 1) {
      const length = view.getUint16(at);
      utf8.set(i, new TextDecoder().decode(bytes.subarray(at + 2, at + 2 + length)));
      at += 2 + length;
    } else if (tag === 7) {
      classIndexes.push(view.getUint16(at));
      at += 2;
    } else if (tag === 5 || tag === 6) {
      at += 8;
      i++;
    } else if ([3, 4, 9, 10, 11, 12, 17, 18].includes(tag)) at += 4;
    else if (tag === 15) at += 3;
    else if ([8, 16, 19, 20].includes(tag)) at += 2;
    else throw new Error(`unknown constant pool tag ${tag}`);
  }
  const names = new Set<string>();
  for (const index of classIndexes) {
    const name = utf8.get(index);
    if (name) names.add(name.replace(/^\[+L?|;$/g, ''));
  }
  for (const text of utf8.values()) for (const m of text.matchAll(/L([\w/$]+);/g)) names.add(m[1]!);
  return names;
}

async function classFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => [])) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await classFiles(dir, child)));
    else if (e.name.endsWith('.class')) out.push(child);
  }
  return out.sort();
}

/** `src/main/java/demo/App.java:3`: the first line of the class's source that names the package of `referenced`. */
async function sourceSite(projectHost: string, classFile: string, referenced: string): Promise<string> {
  const source = `src/main/java/${classFile.replace(/\$.*$|\.class$/g, '')}.java`;
  if (!(await isFile(path.join(projectHost, source)))) return `target/classes/${classFile}`;
  const pkg = referenced.slice(0, referenced.lastIndexOf('/')).replace(/\//g, '.');
  const lines = (await readProjectFile(projectHost, source, 'utf8')).split('\n');
  const i = lines.findIndex((l) => l.includes(pkg));
  return i >= 0 ? `${source}:${i + 1}` : source;
}

export async function javaStaticImports(ctx: AuditContext): Promise<StaticImports> {
  const layout = javaLayout(ctx);
  const classesHost = ctx.sandbox.toHost(layout.projectClasses);
  const projectHost = ctx.host.projectDir;
  const notes: string[] = [];
  const imports: Record<string, string[]> = {};
  if (!classesHost) return { imports, method: 'class references in target/classes', notes: ['target/classes is not visible'] };
  const index = await dependencyClassIndex(ctx);
  const names = new Map<string, string>();
  for (const file of await classFiles(classesHost)) {
    let refs: Set<string>;
    try {
      refs = referencedClasses(new Uint8Array(await readFile(path.join(classesHost, file))));
    } catch (err) {
      notes.push(`${file}: ${(err as Error).message}`);
      continue;
    }
    for (const ref of refs) {
      const jar = index.get(`${ref}.class`);
      if (!jar) continue;
      if (!names.has(jar)) names.set(jar, (await identifyJar(ctx.sandbox.toHost(jar) ?? jar)).artifactId);
      const site = await sourceSite(projectHost, file, ref);
      const list = (imports[names.get(jar)!] ??= []);
      if (!list.includes(site)) list.push(site);
    }
  }
  const jarsHost = ctx.sandbox.toHost(layout.dependencyJars);
  const discovered = jarsHost ? await discoveredJars(jarsHost) : {};
  return { imports, discovered, method: 'class references of the compiled classes (target/classes), mapped to the dependency jars holding them', notes };
}
