import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** The JVM option that writes one class-load log per process (%p = pid) into `dir`, never rotated. */
export function classLoadLogOption(dir: string): string {
  return `-Xlog:class+load=info:file=${path.posix.join(dir, '%p.log')}::filecount=0`;
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

/** Per jar path, the classes loaded from it in load order, over every log line given. */
export function classesByJar(logText: string, into = new Map<string, string[]>()): Map<string, string[]> {
  for (const line of logText.split('\n')) {
    // [0.109s][info][class,load] com.google.gson.Gson source: file:/deps/gson-2.10.1.jar
    const m = /\]\s+(\S+) source: (.+)$/.exec(line);
    if (!m) continue;
    const jar = jarOfSource(m[2]!);
    if (!jar) continue;
    const classes = into.get(jar);
    if (classes) classes.push(m[1]!);
    else into.set(jar, [m[1]!]);
  }
  return into;
}

/** Reads every class-load log in `hostDir`; null when there is none (the run started no JVM with logging). */
export async function readClassLoadLogs(hostDir: string): Promise<Map<string, string[]> | null> {
  const logs = (await readdir(hostDir).catch(() => [] as string[])).filter((n) => n.endsWith('.log'));
  if (logs.length === 0) return null;
  const byJar = new Map<string, string[]>();
  for (const log of logs.sort()) classesByJar(await readFile(path.join(hostDir, log), 'utf8'), byJar);
  return byJar;
}
