/**
 * Java audits that depend on what is outside the project, with the real Maven and the registry:
 * - parent-bom: its parent (jackson-base 2.16.1, itself a child of jackson-bom 2.16.1 → jackson-parent 2.16 →
 *   oss-parent 56) and an imported BOM (netty-bom 4.1.108.Final) manage the versions of both dependencies. D1 must be
 *   the same on a first audit, with none of those POMs in the cache, as on a later one; Maven's own resolution
 *   (D2) is the second route to the versions. The program also writes under `user.home`, which must be the
 *   sandbox's home, not the password database's (/root for the host backend);
 * - reactor: a module depending on another module of the same project is the project using itself;
 * - orphan-parent: a parent Maven cannot get is said to be missing, with Maven's reason.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cacheRoot } from '../../../src/core/cache.js';
import { javaEcosystem } from '../../../src/ecosystems/java/index.js';
import { auditJson as audit } from '../../helpers/cli.js';
import { FIXTURES, workspace, type Workspace } from './helpers.js';

/** The POMs of parent-bom's parent chain and BOM, in the Maven repository the host sandbox uses. */
const FIXTURE_ONLY_POMS = [
  'com/fasterxml/jackson/jackson-base/2.16.1',
  'com/fasterxml/jackson/jackson-bom/2.16.1',
  'com/fasterxml/jackson/jackson-parent/2.16',
  'com/fasterxml/oss-parent/56',
  'io/netty/netty-bom/4.1.108.Final',
].map((dir) => path.join(cacheRoot(), 'm2', dir));

const auditJson = (fixture: string, ...extra: string[]) => audit(path.join(FIXTURES, fixture), ...extra).report;

const pinned = (layer: { name: string; version?: string }[]) => layer.map((d) => `${d.name}@${d.version}`).sort();

describe('parent-bom: a parent and a BOM from the registry', () => {
  let first: any;
  let ws: Workspace;
  before(async () => {
    // Versions no other fixture uses, so that removing them disturbs no other test.
    for (const dir of FIXTURE_ONLY_POMS) await rm(dir, { recursive: true, force: true });
    first = auditJson('parent-bom', '--keep');
    ws = await workspace({ fixture: 'parent-bom' });
  });
  after(async () => {
    await ws?.dispose();
    if (first?.workDir) await rm(first.workDir, { recursive: true, force: true });
  });

  it('the first audit, with an empty cache, gets the parent chain and the BOM through Maven', () => {
    assert.deepEqual(pinned(first.layers.declared), ['jackson-databind@2.16.1', 'netty-buffer@4.1.108.Final']);
    assert.ok(!first.notes.some((n: string) => /not in the local Maven cache/.test(n)), first.notes.join('\n'));
    for (const dir of FIXTURE_ONLY_POMS) assert.ok(existsSync(dir), `${dir} was fetched`);
  });

  it('a later audit, with a warm cache, gives the same D1 (the reading with and without fetching)', async () => {
    const names = (deps: { name: string; version?: string; id?: string }[]) => deps.map(({ name, version, id }) => ({ name, version, id }));
    const inEnvironment = await javaEcosystem.declaredInEnvironment!(ws.projectDir, ws.ctx);
    assert.deepEqual(names(inEnvironment.declared), first.layers.declared);
    const fromCacheOnly = await javaEcosystem.extractDeclared(ws.projectDir);
    assert.deepEqual(names(fromCacheOnly.declared), first.layers.declared);
  });

  it("D1's versions are the ones Maven resolves (D2)", () => {
    const installed = new Map(first.layers.installed.map((d: { name: string; version: string }) => [d.name, d.version]));
    for (const d of first.layers.declared) assert.equal(installed.get(d.name), d.version, d.name);
  });

  it('the JVM gets a writable user.home inside the work directory', () => {
    assert.equal(first.run.success, true, first.run.outputTail);
    const home = path.join(first.workDir, 'home');
    assert.match(first.run.outputTail, new RegExp(`user\\.home=${home}\\n`));
    assert.ok(existsSync(path.join(home, '.parent-bom-demo', 'last-run')));
    assert.ok(!existsSync(path.join(os.homedir(), '.parent-bom-demo')), 'nothing written to the real home');
  });

  it('the run line is short; the full one keeps the class path, which CLASSPATH holds too', () => {
    assert.equal(first.run.command, 'java -cp "$CLASSPATH" demo.App');
    const classpath = first.run.argv[first.run.argv.indexOf('-cp') + 1];
    assert.match(classpath, /\/target\/classes:.*jackson-databind-2\.16\.1\.jar/);
    assert.equal(first.run.env.CLASSPATH, classpath);
  });
});

describe('reactor: the project’s own modules are not its dependencies', () => {
  let report: any;
  before(() => {
    report = auditJson('reactor', '--run', 'java -cp "app/target/classes:$CLASSPATH" demo.app.Main');
  });

  it('--run reaches the built classes and jars through CLASSPATH', () => {
    assert.equal(report.run.command, 'java -cp "app/target/classes:$CLASSPATH" demo.app.Main');
    assert.equal(report.run.success, true, report.run.outputTail);
  });

  it('the module reactor-app depends on reactor-lib, which is neither installed nor traced as a dependency', () => {
    assert.equal(report.run.success, true, report.run.outputTail);
    assert.match(report.run.outputTail, /\{"module":"app"\}/);
    assert.deepEqual(report.ownPackages, ['reactor-app', 'reactor-lib', 'reactor-root']);
    assert.deepEqual(pinned(report.layers.installed), ['gson@2.10.1']);
    assert.deepEqual(pinned(report.layers.traced), ['gson@2.10.1']);
    // reactor-lib's jar was on the class path and supplied a class: only the own-module rule keeps it out.
    assert.match(report.run.env.CLASSPATH, /reactor-lib-1\.0\.0\.jar/);
  });
});

describe('orphan-parent: a parent that cannot be had', () => {
  let ws: Workspace;
  before(async () => {
    ws = await workspace({ fixture: 'orphan-parent' });
  });
  after(() => ws?.dispose());

  it('is asked of the registry through Maven, and the note says it could not be fetched', async () => {
    const declared = await javaEcosystem.declaredInEnvironment!(ws.projectDir, ws.ctx);
    assert.equal(declared.declared[0]?.version, undefined);
    const note = declared.notes.find((n) => n.includes('spring-boot-starter-parent:0.0.0-not-cached'));
    assert.match(note ?? '', /Maven could not fetch it from the repository \(.*could not be found in the repository\)/);
  });
});
