import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readProjectFile } from '../../core/safe-read.js';

/**
 * JVM options of a traced run: one class-load log per process (%p = pid) in `dir`, never rotated; and no
 * /tmp/hsperfdata file, which JVMs with equal pids in separate pid namespaces would contend for, with a warning
 * on the program's standard output.
 */
export function tracedJvmOptions(dir: string): string[] {
  return ['-XX:-UsePerfData', `-Xlog:class+load=info:file=${path.posix.join(dir, '%p.log')}::filecount=0`];
}

function decoded(uriPath: string): string {
  try {
    return decodeURIComponent(uriPath);
  } catch {
    return uriPath;
  }
}

/**
 * The jar a class-load `source:` came from: `file:/x/y.jar` (class path), `jar:file:/x/y.jar!/` (URL class
 * loaders), or a jar nested in a Spring Boot jar as `outer.jar!/BOOT-INF/lib/y.jar` (sources
 * `jar:nested:/x/app.jar/!BOOT-INF/lib/y.jar!/` from Boot 3.2, `jar:file:/x/app.jar!/BOOT-INF/lib/y.jar!/` before);
 * null for the JDK (`jrt:/`, `shared objects file`), directories and generated classes.
 */
export function jarOfSource(source: string): string | null {
  const s = source.trim();
  const nested = /^jar:(?:nested:(\/[^!]*?\.jar)\/|file:(\/[^!]*?\.jar))!\/?([^!]+?\.jar)!\//i.exec(s);
  if (nested) return `${decoded((nested[1] ?? nested[2])!)}!/${nested[3]}`;
  const plain = /^(?:jar:)?file:(\/[^!]*?\.jar)(?:!.*)?$/i.exec(s);
  return plain ? decoded(plain[1]!) : null;
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
  for (const log of logs.sort()) classesByJar(await readProjectFile(hostDir, log, 'utf8'), byJar);
  return byJar;
}
