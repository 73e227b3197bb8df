import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** The JVM option that writes one class-load log per process (%p = pid) into `dir`, never rotated. */
export function classLoadLogOption(dir: string): string {
  return `-Xlog:class+load=info:file=${path.posix.join(dir, '%p.log')}::filecount=0`;
}

export interface JarClassCount {
  classes: number;
  /** The first class loaded from the jar, for the evidence. */
  example: string;
}

/**
 * The jar a class-load `source:` came from: `file:/x/y.jar` (class path) or `jar:file:/x/y.jar!/` (URL class
 * loaders); null for the JDK (`jrt:/`, `shared objects file`), directories and generated classes.
 */
export function jarOfSource(source: string): string | null {
  const m = /^(?:jar:)?file:(\/[^!]*?\.jar)(?:!.*)?$/i.exec(source.trim());
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!;
  }
}

/** Per jar path, how many classes were loaded from it, over every log line given. */
export function countClassesByJar(logText: string, into = new Map<string, JarClassCount>()): Map<string, JarClassCount> {
  for (const line of logText.split('\n')) {
    // [0.109s][info][class,load] com.google.gson.Gson source: file:/deps/gson-2.10.1.jar
    const m = /\]\s+(\S+) source: (.+)$/.exec(line);
    if (!m) continue;
    const jar = jarOfSource(m[2]!);
    if (!jar) continue;
    const entry = into.get(jar);
    if (entry) entry.classes++;
    else into.set(jar, { classes: 1, example: m[1]! });
  }
  return into;
}

/** Reads every class-load log in `hostDir`; null when there is none (the run started no JVM with logging). */
export async function readClassLoadLogs(hostDir: string): Promise<Map<string, JarClassCount> | null> {
  const logs = (await readdir(hostDir).catch(() => [] as string[])).filter((n) => n.endsWith('.log'));
  if (logs.length === 0) return null;
  const counts = new Map<string, JarClassCount>();
  for (const log of logs.sort()) countClassesByJar(await readFile(path.join(hostDir, log), 'utf8'), counts);
  return counts;
}
