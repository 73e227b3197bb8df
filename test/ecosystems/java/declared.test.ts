// tier: quick
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EnvproofError } from '../../../src/core/errors.js';
import type { Dependency } from '../../../src/core/types.js';
import { extractJavaDeclared } from '../../../src/ecosystems/java/declared.js';
import { parsePomXml } from '../../../src/ecosystems/java/pom-xml.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

const byName = (deps: readonly Dependency[]) => Object.fromEntries(deps.map((d) => [d.name, d]));
const names = (deps: readonly Dependency[] | undefined) => (deps ?? []).map((d) => d.name).sort();

describe('Java D1: pom.xml declarations', () => {
  const savedCache = process.env.ENVPROOF_CACHE_DIR;
  before(() => {
    // The imported BOMs of the features fixture live in a hand-written Maven repository layout.
    process.env.ENVPROOF_CACHE_DIR = path.join(FIXTURES, 'pom-features', 'cache');
  });
  after(() => {
    if (savedCache === undefined) delete process.env.ENVPROOF_CACHE_DIR;
    else process.env.ENVPROOF_CACHE_DIR = savedCache;
  });

  it('reads compile and runtime dependencies, with versions from properties, the parent, management and BOMs', async () => {
    const r = await extractJavaDeclared(path.join(FIXTURES, 'pom-features', 'app'));
    assert.equal(r.manifest, 'pom.xml');
    assert.deepEqual(names(r.declared), [
      'commons-io',
      'features-core',
      'gadgets',
      'guava',
      'h2',
      'jackson-databind',
      'looping',
      'postgresql',
      'slf4j-api',
      'widgets',
    ]);
    const d = byName(r.declared);
    assert.equal(d['jackson-databind']?.version, '2.16.1', 'jackson.version -> base.version of the parent');
    assert.equal(d['jackson-databind']?.id, 'com.fasterxml.jackson.core:jackson-databind');
    assert.equal(d['slf4j-api']?.version, '2.0.13', "the parent's dependencyManagement");
    assert.equal(d['widgets']?.version, '7.4', 'the imported BOM, its own entry before its nested import');
    assert.equal(d['gadgets']?.version, '3.0.1', 'the BOM imported by the BOM, ${project.version} of that BOM');
    assert.equal(d['features-core']?.id, 'org.example.features:features-core', 'project.groupId inherited from <parent>');
    assert.equal(d['features-core']?.version, '5.1.0', 'project.parent.version');
    assert.equal(d['commons-io']?.version, '2.16.1');
    assert.equal(d['guava']?.source, '../pom.xml:30', 'inherited from the in-tree parent, at its <dependency> line');
    assert.equal(d['looping']?.version, undefined, 'a property cycle leaves the version unknown');
    assert.ok(r.notes.some((n) => n.includes('loop.a') && n.includes('refers to itself')), r.notes.join('\n'));
  });

  it('reports test, provided, optional, profiles and BOM imports apart, and skips what it cannot name', async () => {
    const r = await extractJavaDeclared(path.join(FIXTURES, 'pom-features', 'app'));
    assert.deepEqual(names(r.other.test), ['junit-jupiter']);
    assert.deepEqual(names(r.other.provided), ['jakarta.servlet-api']);
    assert.deepEqual(names(r.other.optional), ['h2']);
    assert.deepEqual(names(r.other['profile:metrics']), ['micrometer-core']);
    assert.deepEqual(names(r.other['bom-import']), ['platform-bom']);
    assert.deepEqual(Object.keys(r.other).sort(), ['bom-import', 'optional', 'profile:metrics', 'provided', 'test']);
    const everything = [...r.declared, ...Object.values(r.other).flat()].map((x) => x.name);
    assert.ok(!everything.includes('asm'), "a build plugin's own dependencies are not the project's");
    assert.ok(!everything.includes('maven-shade-plugin'));
    assert.deepEqual(
      r.skipped.map((s) => [s.raw, s.reason, s.source]),
      [
        ['org.example:${undefined.name}', 'unresolved-property', 'pom.xml:81'],
        ['?:orphan', 'invalid-name', 'pom.xml:87'],
      ],
    );
  });

  it('notes a parent that is neither in the tree nor cached, and keeps the dependency without a version', async () => {
    const r = await extractJavaDeclared(path.join(FIXTURES, 'orphan-parent'));
    assert.deepEqual(names(r.declared), ['spring-boot-starter-web']);
    assert.equal(r.declared[0]?.version, undefined);
    assert.ok(r.notes.some((n) => n.includes('spring-boot-starter-parent:0.0.0-not-cached') && n.includes('neither in the project tree')));
  });

  it('says that a multi-module project is audited at its root POM only', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'envproof-reactor-'));
    try {
      await writeFile(path.join(dir, 'pom.xml'), '<project><groupId>g</groupId><artifactId>root</artifactId><version>1</version><packaging>pom</packaging><modules><module>a</module><module>b</module></modules></project>');
      const r = await extractJavaDeclared(dir);
      assert.deepEqual(r.declared, []);
      assert.ok(r.notes.some((n) => n.startsWith('multi-module project')), r.notes.join('\n'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads the gson/jackson fixture as a user wrote it', async () => {
    const r = await extractJavaDeclared(path.join(FIXTURES, 'gson-jackson'));
    assert.deepEqual(
      r.declared.map((d) => `${d.id}:${d.version}`),
      ['org.apache.commons:commons-lang3:3.14.0', 'com.google.code.gson:gson:2.10.1', 'com.fasterxml.jackson.core:jackson-databind:2.17.2'],
    );
    assert.deepEqual(names(r.other.test), ['junit']);
    assert.ok(!r.declared.some((d) => d.name === 'exec-maven-plugin'));
    assert.equal(r.declared[0]?.source, 'pom.xml:18');
  });
});

describe('Java D1: XML details', () => {
  it('accepts a byte order mark and decodes character references', () => {
    const project = parsePomXml('\uFEFF<?xml version="1.0"?><project><name>a &amp; b &#x41;</name><version>1.10</version></project>', 'pom.xml');
    assert.deepEqual(project.name, ['a & b A']);
    assert.deepEqual(project.version, ['1.10'], 'versions stay strings');
  });

  it('an empty file, nesting beyond bounds and another root element are clear errors', () => {
    assert.throws(() => parsePomXml('', 'empty.xml'), (e: unknown) => e instanceof EnvproofError && /^empty\.xml: malformed XML at line 1: /.test(e.message));
    const deep = `<project>${'<a>'.repeat(150)}${'</a>'.repeat(150)}</project>`;
    assert.throws(() => parsePomXml(deep, 'deep.xml'), (e: unknown) => e instanceof EnvproofError && /Maximum nested tags/.test(e.message));
    assert.throws(() => parsePomXml('<settings/>', 's.xml'), (e: unknown) => e instanceof EnvproofError && /root element is not <project>/.test(e.message));
  });

  it('a declaration mentioned in a comment or CDATA is not one', () => {
    const project = parsePomXml('<project><!-- no <!DOCTYPE here --><description><![CDATA[<!ENTITY x "y">]]></description></project>', 'pom.xml');
    assert.deepEqual(project.description, ['<!ENTITY x "y">']);
  });
});

describe('Java D1: bad and hostile pom.xml', () => {
  const refusal = async (dir: string) => {
    try {
      await extractJavaDeclared(path.join(FIXTURES, dir));
    } catch (err) {
      assert.ok(err instanceof EnvproofError, `expected an EnvproofError, got ${String(err)}`);
      return err;
    }
    assert.fail(`${dir} was accepted`);
  };

  it('malformed XML: an EnvproofError with the position', async () => {
    const err = await refusal('bad-malformed');
    assert.match(err.message, /malformed XML at line 9, column \d+/);
    assert.ok(err.hint);
  });

  it('an XXE attempt is refused before parsing, and no file content leaks', async () => {
    const err = await refusal('bad-xxe');
    assert.match(err.message, /refused: it contains a <!DOCTYPE> declaration \(line 2, column 1\)/);
    assert.ok(!err.message.includes('root:'), 'the content of /etc/passwd must not appear');
  });

  it('an entity declaration without DOCTYPE is refused too', async () => {
    const err = await refusal('bad-entities');
    assert.match(err.message, /<!ENTITY> declaration \(line 4, column 1\)/);
  });

  it('a missing pom.xml is a clear error', async () => {
    const err = await refusal('does-not-exist');
    assert.match(err.message, /no pom\.xml/);
  });
});
