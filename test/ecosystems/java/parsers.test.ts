// tier: quick
/** The Java module's pure parsers, on text written by hand in the formats Maven and the JVM produce. */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { classesByJar, jarOfSource } from '../../../src/ecosystems/java/class-load-log.js';
import { installedLayer, parseDependencyList } from '../../../src/ecosystems/java/dependency-list.js';
import { identifyJar, identityFromFileName, parseManifest } from '../../../src/ecosystems/java/jar.js';
import { classifyMavenFailure, errorSummary } from '../../../src/ecosystems/java/maven.js';

describe('dependency:list output', () => {
  const listing = [
    '',
    'The following files have been resolved:',
    '   com.google.code.gson:gson:jar:2.10.1:compile -- module com.google.gson',
    '   io.netty:netty-transport-native-epoll:jar:linux-x86_64:4.1.111.Final:runtime -- module io.netty.transport.epoll [auto]',
    '   com.h2database:h2:jar:2.2.224:compile (optional) -- module com.h2database',
    '   jakarta.servlet:jakarta.servlet-api:jar:6.0.0:provided',
    '   org.hamcrest:hamcrest-core:jar:1.3:test -- module hamcrest.core (auto)',
    '\x1b[0m',
    '   none',
  ].join('\n');

  it('reads type, classifier, version, scope and optional', () => {
    const a = parseDependencyList(listing);
    assert.deepEqual(
      a.map((x) => [x.groupId, x.artifactId, x.classifier ?? '', x.version, x.scope, x.optional]),
      [
        ['com.google.code.gson', 'gson', '', '2.10.1', 'compile', false],
        ['io.netty', 'netty-transport-native-epoll', 'linux-x86_64', '4.1.111.Final', 'runtime', false],
        ['com.h2database', 'h2', '', '2.2.224', 'compile', true],
        ['jakarta.servlet', 'jakarta.servlet-api', '', '6.0.0', 'provided', false],
        ['org.hamcrest', 'hamcrest-core', '', '1.3', 'test', false],
      ],
    );
  });

  it('D2 drops test scope and names by artifactId', () => {
    const d2 = installedLayer(parseDependencyList(listing));
    assert.deepEqual(
      d2.map((d) => `${d.id}@${d.version}`),
      ['com.google.code.gson:gson@2.10.1', 'io.netty:netty-transport-native-epoll@4.1.111.Final', 'com.h2database:h2@2.2.224', 'jakarta.servlet:jakarta.servlet-api@6.0.0'],
    );
    assert.equal(d2[0]?.name, 'gson');
  });

  it('lists appended by several reactor modules give each artifact once', () => {
    const twice = `${listing}\n\nThe following files have been resolved:\n   com.google.code.gson:gson:jar:2.10.1:compile -- module com.google.gson\n`;
    assert.equal(installedLayer(parseDependencyList(twice)).filter((d) => d.name === 'gson').length, 1);
  });
});

describe('class-load log', () => {
  it('maps sources to jars and leaves out the JDK, directories and generated classes', () => {
    assert.equal(jarOfSource('file:/env/deps/gson-2.10.1.jar'), '/env/deps/gson-2.10.1.jar');
    assert.equal(jarOfSource('jar:file:/opt/my%20libs/a-1.0.jar!/'), '/opt/my libs/a-1.0.jar');
    assert.equal(jarOfSource('jrt:/java.base'), null);
    assert.equal(jarOfSource('shared objects file'), null);
    assert.equal(jarOfSource('file:/project/target/classes/'), null);
    assert.equal(jarOfSource('__JVM_LookupDefineClass__'), null);
  });

  it('names jars nested in a Spring Boot jar, in both URL forms', () => {
    assert.equal(jarOfSource('jar:nested:/p/target/app-1.0.jar/!BOOT-INF/lib/gson-2.13.2.jar!/'), '/p/target/app-1.0.jar!/BOOT-INF/lib/gson-2.13.2.jar');
    assert.equal(jarOfSource('jar:file:/p/target/app-1.0.jar!/BOOT-INF/lib/gson-2.13.2.jar!/'), '/p/target/app-1.0.jar!/BOOT-INF/lib/gson-2.13.2.jar');
    assert.equal(jarOfSource('jar:nested:/p/target/app-1.0.jar/!BOOT-INF/classes/!/'), null, "the application's own classes");
  });

  it('lists the classes loaded from each jar, in load order', () => {
    const log = [
      '[0.047s][info][class,load] java.lang.Object source: shared objects file',
      '[0.092s][info][class,load] demo.App source: file:/p/target/classes/',
      '[0.109s][info][class,load] com.google.gson.Gson source: file:/d/gson-2.10.1.jar',
      '[0.110s][info][class,load] com.google.gson.JsonElement source: file:/d/gson-2.10.1.jar',
      '[0.2s][info][class,load] org.x.Y source: jar:file:/d/x-1.jar!/',
      '[0.3s][info][class,load] jdk.internal.Lambda$1/0x01 source: demo.App',
    ].join('\n');
    assert.deepEqual([...classesByJar(log).entries()], [
      ['/d/gson-2.10.1.jar', ['com.google.gson.Gson', 'com.google.gson.JsonElement']],
      ['/d/x-1.jar', ['org.x.Y']],
    ]);
  });
});

describe('jars', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'envproof-jar-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const jar = async (name: string, entries: Record<string, string>) => {
    const file = path.join(dir, name);
    await writeFile(file, zipSync(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, strToU8(v)]))));
    return file;
  };
  const props = (g: string, a: string, v: string) => `#Generated by Maven\nartifactId=${a}\ngroupId=${g}\nversion=${v}\n`;

  it('names a jar from its pom.properties, not its file name', async () => {
    const file = await jar('renamed.jar', { 'META-INF/maven/org.example/real-name/pom.properties': props('org.example', 'real-name', '1.2.3') });
    assert.deepEqual(await identifyJar(file), { groupId: 'org.example', artifactId: 'real-name', version: '1.2.3', how: 'pom.properties' });
  });

  it('in a jar bundling several, takes the one matching the file name', async () => {
    const file = await jar('app-2.0.jar', {
      'META-INF/maven/org.dep/dep/pom.properties': props('org.dep', 'dep', '9'),
      'META-INF/maven/org.me/app/pom.properties': props('org.me', 'app', '2.0'),
    });
    assert.equal((await identifyJar(file)).groupId, 'org.me');
  });

  it('reads a jar nested in another (Spring Boot BOOT-INF/lib)', async () => {
    const inner = zipSync({ 'META-INF/maven/com.google.code.gson/gson/pom.properties': strToU8(props('com.google.code.gson', 'gson', '2.13.2')) });
    const outer = await jar('boot-app.jar', {});
    await writeFile(outer, zipSync({ 'BOOT-INF/lib/gson-2.13.2.jar': [inner, { level: 0 }], 'BOOT-INF/lib/bare-1.0.jar': [zipSync({}), { level: 0 }] }));
    assert.deepEqual(await identifyJar(`${outer}!/BOOT-INF/lib/gson-2.13.2.jar`), { groupId: 'com.google.code.gson', artifactId: 'gson', version: '2.13.2', how: 'pom.properties' });
    assert.deepEqual(await identifyJar(`${outer}!/BOOT-INF/lib/bare-1.0.jar`), { artifactId: 'bare', version: '1.0', how: 'file-name' });
  });

  it('falls back to the file name', async () => {
    const file = await jar('jackson-core-2.17.2.jar', { 'x.txt': 'no maven metadata' });
    assert.deepEqual(await identifyJar(file), { artifactId: 'jackson-core', version: '2.17.2', how: 'file-name' });
    assert.deepEqual(identityFromFileName('/x/netty-all.jar'), { artifactId: 'netty-all', how: 'file-name' });
  });

  it('reads the main section of a manifest with continuation lines', () => {
    const mf = 'Manifest-Version: 1.0\r\nMain-Class: com.example.very.long.package.name.that.wraps.at.seventy.tw\r\n o.Main\r\n\r\nName: x\r\nMain-Class: not.This\r\n';
    assert.equal(parseManifest(mf).get('Main-Class'), 'com.example.very.long.package.name.that.wraps.at.seventy.two.Main');
  });
});

describe('Maven failure classes', () => {
  const cases: [string, string][] = [
    ['[ERROR] Failed to execute goal on project x: Could not resolve dependencies for project d:x:jar:1: The following artifacts could not be resolved: com.acme:nope:jar:1.0 (absent): Could not find artifact com.acme:nope:jar:1.0 in central', 'no-such-package'],
    ['[ERROR] ... com.acme:nope:jar:1.0 was not found in https://repo.maven.apache.org/maven2 during a previous attempt.', 'no-such-package'],
    ['[ERROR] Failed to collect dependencies at com.acme:lib:jar:[5.0,6.0): No versions available for com.acme:lib:jar:[5.0,6.0) within specified range', 'no-matching-version'],
    ["[ERROR]   'dependencies.dependency.version' for com.google.code.gson:gson:jar is missing. @ line 3", 'build-configuration'],
    ['[FATAL] Non-parseable POM /p/pom.xml: end tag name </version> must match', 'build-configuration'],
    ['[ERROR] Could not transfer artifact a:b:pom:1 from/to central: repo.maven.apache.org: Temporary failure in name resolution', 'network'],
    ['[ERROR] Could not resolve dependencies for project d:x:jar:1: The following artifacts could not be resolved: a:b:jar:1 (absent): Could not transfer artifact a:b:jar:1 from/to central: Connection refused', 'network'],
    ['[ERROR] COMPILATION ERROR :\n[ERROR] /p/src/main/java/A.java:[3,1] class, interface, enum, or record expected', 'other'],
  ];
  for (const [output, expected] of cases) {
    it(`${expected}: ${output.slice(8, 70)}`, () => assert.equal(classifyMavenFailure(output).failureClass, expected));
  }

  it("keeps Maven's error lines without its generic advice", () => {
    const out = '[INFO] x\n[ERROR] Failed: it broke\n[ERROR] \n[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.\n[ERROR] [Help 1] http://x';
    assert.equal(errorSummary(out), '[ERROR] Failed: it broke');
  });
});
