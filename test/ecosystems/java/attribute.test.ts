// tier: quick
/**
 * Java D3 attribution on a hand-made environment: jars written here (with or without pom.properties), a
 * class-load log written by hand in the JVM's format, and a traced file set as strace would report it.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { javaEcosystem as java, javaTracedLayer, type MavenInstallDetails } from '../../../src/ecosystems/java/index.js';
import type { AttributionResult, InstallResult } from '../../../src/ecosystems/types.js';
import { pins, workspace, type Workspace } from './helpers.js';

const NO_INSTALL: InstallResult<MavenInstallDetails> = { installed: [], commands: [], durationMs: 0, details: { resolved: [] } };

async function writeJar(file: string, pom?: { g: string; a: string; v: string }, classes: string[] = []): Promise<string> {
  const entries: Record<string, Uint8Array> = { 'META-INF/MANIFEST.MF': strToU8('Manifest-Version: 1.0\n') };
  for (const c of classes) entries[c] = new Uint8Array([0xca, 0xfe, 0xba, 0xbe]);
  if (pom) entries[`META-INF/maven/${pom.g}/${pom.a}/pom.properties`] = strToU8(`groupId=${pom.g}\nartifactId=${pom.a}\nversion=${pom.v}\n`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, zipSync(entries));
  return file;
}

describe('Java D3 attribution', () => {
  let ws: Workspace;
  let result: AttributionResult;
  let jars: Record<string, string>;

  before(async () => {
    ws = await workspace({ files: { 'pom.xml': '<project/>' } });
    const deps = path.join(ws.ctx.envDir, 'java', 'deps');
    const target = path.join(ws.projectDir, 'target');
    jars = {
      // file name and pom.properties disagree: pom.properties wins
      loaded: await writeJar(path.join(deps, 'renamed.jar'), { g: 'org.used', a: 'used-lib', v: '1.4.0' }),
      openedOnly: await writeJar(path.join(deps, 'idle-lib-2.0.jar'), { g: 'org.idle', a: 'idle-lib', v: '2.0' }),
      noMetadata: await writeJar(path.join(deps, 'bare-3.1.jar')),
      // never opened itself: its class was loaded from the project's fat jar, which bundles it
      bundled: await writeJar(path.join(deps, 'bundled-0.9.jar'), { g: 'org.b', a: 'bundled', v: '0.9' }, ['org/b/Z.class', 'org/b/Z$Inner.class']),
      copiedByBuild: await writeJar(path.join(target, 'lib', 'lib-in-target-5.0.jar'), { g: 'org.t', a: 'lib-in-target', v: '5.0' }),
      ownJar: await writeJar(path.join(target, 'app-1.0.jar'), { g: 'demo', a: 'app', v: '1.0' }),
      bootJar: path.join(target, 'boot-1.0.jar'),
    };
    // A Spring Boot jar of the project, with a dependency nested in BOOT-INF/lib (stored, as Boot does).
    const nested = zipSync({ 'META-INF/maven/org.n/nested-lib/pom.properties': strToU8('groupId=org.n\nartifactId=nested-lib\nversion=7.0\n') });
    await writeFile(jars.bootJar!, zipSync({ 'BOOT-INF/lib/nested-lib-7.0.jar': [nested, { level: 0 }] }));
    const logDir = path.join(ws.ctx.envDir, 'java', 'class-load');
    await mkdir(logDir, { recursive: true });
    const line = (cls: string, source: string) => `[0.1s][info][class,load] ${cls} source: ${source}`;
    await writeFile(
      path.join(logDir, '41.log'),
      [
        line('java.lang.Object', 'shared objects file'),
        line('java.util.HexFormat', 'jrt:/java.base'),
        line('demo.Main', `file:${ws.projectDir}/target/classes/`),
        line('org.used.A', `file:${jars.loaded}`),
        line('org.used.B', `file:${jars.loaded}`),
        line('bare.X', `jar:file:${jars.noMetadata}!/`),
        line('org.t.T', `file:${jars.copiedByBuild}`),
        line('demo.Packaged', `file:${jars.ownJar}`),
        line('org.b.Z', `file:${jars.ownJar}`),
        line('org.b.Z$Inner', `file:${jars.ownJar}`),
        line('org.n.N', `jar:nested:${jars.bootJar}/!BOOT-INF/lib/nested-lib-7.0.jar!/`),
        line('demo.BootMain', `jar:nested:${jars.bootJar}/!BOOT-INF/classes/!/`),
      ].join('\n'),
    );
    const files = new Set([
      jars.loaded!,
      jars.openedOnly!,
      jars.noMetadata!,
      jars.copiedByBuild!,
      jars.ownJar!,
      '/usr/lib/jvm/java-17-openjdk-amd64/lib/modules',
      '/usr/lib/jvm/java-17-openjdk-amd64/lib/jrt-fs.jar',
      path.join(ws.projectDir, 'target', 'classes', 'demo', 'Main.class'),
    ]);
    result = await java.attribute(files, ws.ctx, NO_INSTALL);
  });
  after(() => ws?.dispose());

  it('traced (loaded): jars classes came from (nested Boot jars too), named by pom.properties or file name; fat-JAR classes by the jar holding them', () => {
    assert.deepEqual(pins(result.traced), ['bare@3.1', 'bundled@0.9', 'lib-in-target@5.0', 'nested-lib@7.0', 'used-lib@1.4.0']);
    assert.equal(result.traced.find((d) => d.name === 'nested-lib')?.id, 'org.n:nested-lib', 'pom.properties of the nested jar');
    assert.equal(result.traced.find((d) => d.name === 'used-lib')?.id, 'org.used:used-lib');
    assert.equal(result.traced.find((d) => d.name === 'bare')?.id, undefined, 'no groupId without pom.properties');
  });

  it('opened: also the jar that supplied no class; never the JDK or the project jar', () => {
    assert.deepEqual(pins(result.alternatives?.opened ?? []), ['bare@3.1', 'idle-lib@2.0', 'lib-in-target@5.0', 'used-lib@1.4.0']);
    assert.deepEqual(pins(javaTracedLayer(result, 'opened')), pins(result.alternatives?.opened ?? []));
    assert.deepEqual(pins(javaTracedLayer(result, 'loaded')), pins(result.traced));
  });

  it('evidence: class counts, and jars opened without a class', () => {
    assert.deepEqual(result.evidence['used-lib'], [`${jars.loaded}: 2 classes loaded (e.g. org.used.A)`]);
    assert.deepEqual(result.evidence['bare'], [`${jars.noMetadata}: 1 class loaded (e.g. bare.X)`]);
    assert.deepEqual(result.evidence['idle-lib'], [`${jars.openedOnly}: opened, but no class was loaded from it`]);
    assert.equal(result.evidence['app'], undefined);
    assert.deepEqual(result.evidence['bundled'], [`${jars.ownJar}: 2 classes of bundled-0.9.jar loaded from the project's bundled jar (e.g. org.b.Z)`]);
  });

  it('without a class-load log, traced falls back to the opened jars', async () => {
    const other = await workspace({ files: { 'pom.xml': '<project/>' } });
    try {
      const r = await java.attribute(new Set([jars.openedOnly!]), other.ctx, NO_INSTALL);
      assert.deepEqual(pins(r.traced), ['idle-lib@2.0']);
      assert.deepEqual(Object.keys(r.alternatives ?? {}), ['opened']);
    } finally {
      await other.dispose();
    }
  });
});
