/**
 * Real Maven resolution and build of the fixtures, a real strace run of each default command, and both D3
 * attributions. One install and build per fixture, shared by its assertions.
 *
 * Expected sets, derived by hand from the POMs on Maven Central:
 *   gson 2.10.1             → no compile or runtime dependencies (junit, test scope)
 *   jackson-databind 2.17.2 → jackson-annotations 2.17.2, jackson-core 2.17.2 (the rest is test scope)
 *   commons-lang3 3.14.0    → none (commons-text is provided scope, the rest test scope)
 *   junit 4.13.2 (test)     → hamcrest-core 1.3, test scope like its parent: neither is in D2
 * Maven's class path follows declaration order with each dependency's own dependencies after it:
 *   commons-lang3, gson, jackson-databind, jackson-annotations, jackson-core.
 * From the code: App uses Gson and ObjectMapper; ObjectMapper needs jackson-core (JsonFactory) and its annotation
 * introspector loads jackson-annotations classes, so (b) loaded = gson, jackson-databind, jackson-annotations,
 * jackson-core. Every class lookup for those walks the class path in order and misses in commons-lang3 first, so
 * (a) opened = (b) + commons-lang3, the jar the paper's method counts although no class came from it.
 */
import assert from 'node:assert/strict';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NoEntryPointError, StepFailedError } from '../../src/core/errors.js';
import { nameSet } from '../../src/core/names.js';
import { javaEcosystem as java, javaTracedLayer } from '../../src/ecosystems/java/index.js';
import type { AttributionResult, InstallResult, RunChoice } from '../../src/ecosystems/types.js';
import { gapSets } from '../../src/metrics/project.js';
import { classifyStepFailure } from '../../src/protocol/classify.js';
import { traceRun } from '../../src/trace/index.js';
import type { TraceResult } from '../../src/trace/types.js';
import type { MavenInstallDetails } from '../../src/ecosystems/java/index.js';
import { pins, workspace, type Workspace } from './helpers.js';

interface Audited {
  ws: Workspace;
  install: InstallResult<MavenInstallDetails>;
  run: RunChoice;
  trace: TraceResult;
  d3: AttributionResult;
}

async function trace(ws: Workspace, run: RunChoice): Promise<TraceResult> {
  return traceRun(ws.ctx.sandbox, { argv: run.argv, env: run.env, cwd: ws.projectDir, timeoutMs: 120_000, network: false });
}

async function audit(fixture: string): Promise<Audited> {
  const ws = await workspace({ fixture });
  const install = await java.install(ws.ctx);
  await java.build!(ws.ctx, install);
  const run = await java.defaultRun(ws.ctx, install);
  const t = await trace(ws, run);
  const d3 = await java.attribute(t.files, ws.ctx, install);
  return { ws, install, run, trace: t, d3 };
}

const names = (deps: readonly { name: string }[] | undefined) => [...nameSet(deps ?? [])].sort();

// The suites share nothing but the Maven cache, so they run side by side (mvn waits on the network and disk).
describe('Java audit', { concurrency: true }, () => {
  describe('Java audit: gson + jackson-databind, commons-lang3 declared but unused', () => {
    let a: Audited;
    before(async () => {
      a = await audit('gson-jackson');
    });
    after(() => a?.ws.dispose());

    it('D2 is the transitive closure without test scope', () => {
      assert.deepEqual(pins(a.install.installed), [
        'commons-lang3@3.14.0',
        'gson@2.10.1',
        'jackson-annotations@2.17.2',
        'jackson-core@2.17.2',
        'jackson-databind@2.17.2',
      ]);
      const core = a.install.installed.find((d) => d.name === 'jackson-core');
      assert.equal(core?.id, 'com.fasterxml.jackson.core:jackson-core');
      assert.ok(a.install.commands.some((c) => c.includes('maven-dependency-plugin:3.6.1:list')));
    });

    it('runs the exec plugin main class on target/classes and the copied jars, in Maven order', () => {
      assert.equal(a.run.argv[0], 'java');
      assert.equal(a.run.argv.at(-1), 'demo.App');
      assert.match(a.run.reason, /exec-maven-plugin/);
      const cp = a.run.argv[a.run.argv.indexOf('-cp') + 1]!.split(':');
      assert.equal(cp[0], path.join(a.ws.projectDir, 'target', 'classes'));
      assert.deepEqual(
        cp.slice(1).map((p) => path.basename(p)),
        ['commons-lang3-3.14.0.jar', 'gson-2.10.1.jar', 'jackson-databind-2.17.2.jar', 'jackson-annotations-2.17.2.jar', 'jackson-core-2.17.2.jar'],
      );
      assert.ok(cp.slice(1).every((p) => p.startsWith(a.ws.ctx.envDir)), 'each dependency is its own jar in the environment');
    });

    it('the program ran under the tracer', () => {
      assert.equal(a.trace.run.exitCode, 0, a.trace.run.stderr);
      assert.match(a.trace.run.stdout, /gson: \{"name":"envproof","layers":3\}/);
      assert.match(a.trace.run.stdout, /jackson: \{"name":"envproof","layers":3\}/);
    });

    it('D3 (b) class-level: the jars classes came from, hidden jackson-core and jackson-annotations included', () => {
      assert.deepEqual(pins(a.d3.traced), ['gson@2.10.1', 'jackson-annotations@2.17.2', 'jackson-core@2.17.2', 'jackson-databind@2.17.2']);
      assert.deepEqual(pins(a.d3.alternatives?.loaded ?? []), pins(a.d3.traced));
      const annotations = a.d3.traced.find((d) => d.name === 'jackson-annotations');
      assert.equal(annotations?.id, 'com.fasterxml.jackson.core:jackson-annotations', 'groupId from pom.properties inside the jar');
      assert.match(a.d3.evidence['gson']?.[0] ?? '', /gson-2\.10\.1\.jar: \d+ classes loaded \(e\.g\. com\.google\.gson\./);
    });

    it('D3 (a) opened jars adds commons-lang3, searched but supplying nothing; the report can say so', () => {
      assert.deepEqual(names(a.d3.alternatives?.opened), ['commons-lang3', 'gson', 'jackson-annotations', 'jackson-core', 'jackson-databind']);
      assert.deepEqual(names(javaTracedLayer(a.d3, 'opened')), names(a.d3.alternatives?.opened));
      assert.match(a.d3.evidence['commons-lang3']?.join('\n') ?? '', /opened, but no class was loaded from it/);
    });

    it('gaps: commons-lang3 is phantom, jackson-core and jackson-annotations are hidden', () => {
      const d1 = nameSet(['commons-lang3', 'gson', 'jackson-databind'].map((name) => ({ name })));
      const gaps = gapSets(d1, nameSet(a.install.installed), nameSet(a.d3.traced));
      assert.deepEqual(gaps.phantom, ['commons-lang3']);
      assert.deepEqual(gaps.hidden, ['jackson-annotations', 'jackson-core']);
      assert.deepEqual(gaps.bloat, ['commons-lang3']);
    });

    it('--run: a user command gets the class-load log through JAVA_TOOL_OPTIONS', async () => {
      const logs = path.join(a.ws.ctx.envDir, 'java', 'class-load');
      await rm(logs, { recursive: true, force: true });
      await mkdir(logs);
      const cp = a.run.argv[a.run.argv.indexOf('-cp') + 1]!;
      const run = java.userRun(`java -cp '${cp}' demo.App > /dev/null`, a.ws.ctx, a.install);
      assert.deepEqual(run.argv.slice(0, 2), ['sh', '-c']);
      const t = await trace(a.ws, run);
      assert.equal(t.run.exitCode, 0, t.run.stderr);
      const d3 = await java.attribute(t.files, a.ws.ctx, a.install);
      assert.deepEqual(names(d3.traced), ['gson', 'jackson-annotations', 'jackson-core', 'jackson-databind']);
    });
  });

  describe('Java audit: a shaded fat JAR is not what gets traced', () => {
    let a: Audited;
    before(async () => {
      a = await audit('shaded');
    });
    after(() => a?.ws.dispose());

    it("finds the main class in the shaded jar's manifest and runs the class path instead of the jar", () => {
      assert.equal(a.run.argv.at(-1), 'demo.Shout');
      assert.match(a.run.reason, /Main-Class of shaded-app-2\.0\.0\.jar/);
      const cp = a.run.argv[a.run.argv.indexOf('-cp') + 1]!.split(':');
      assert.deepEqual(
        cp.filter((p) => p.includes('/target/')),
        [path.join(a.ws.projectDir, 'target', 'classes')],
        'no jar of the build (the fat JAR) is on the class path',
      );
      assert.equal(a.trace.run.exitCode, 0, a.trace.run.stderr);
      assert.equal(a.trace.run.stdout.trim(), 'ENVPROOF !!!');
    });

    it('--run of the fat JAR itself: classes are still attributed, through the copied jars holding them', async () => {
      const logs = path.join(a.ws.ctx.envDir, 'java', 'class-load');
      await rm(logs, { recursive: true, force: true });
      await mkdir(logs);
      const run = java.userRun('java -jar target/shaded-app-2.0.0.jar', a.ws.ctx, a.install);
      const t = await trace(a.ws, run);
      assert.equal(t.run.stdout.trim(), 'ENVPROOF !!!');
      const d3 = await java.attribute(t.files, a.ws.ctx, a.install);
      assert.deepEqual(pins(d3.traced), ['commons-lang3@3.14.0']);
      assert.deepEqual(d3.alternatives?.opened, [], "the paper's way sees one jar, the project's own");
    });

    it('D2 has both declared jars; D3 only commons-lang3, never the project jar', () => {
      assert.deepEqual(pins(a.install.installed), ['commons-lang3@3.14.0', 'gson@2.10.1']);
      assert.deepEqual(pins(a.d3.traced), ['commons-lang3@3.14.0']);
      // commons-lang3 is first on the class path, so every lookup stops there: gson is not even opened.
      assert.deepEqual(names(a.d3.alternatives?.opened), ['commons-lang3']);
    });
  });

  describe('Java audit: failures', { concurrency: true }, () => {
    const workspaces: Workspace[] = [];
    after(() => Promise.all(workspaces.map((w) => w.dispose())));
    const fresh = async (source: Parameters<typeof workspace>[0]) => {
      const ws = await workspace(source);
      workspaces.push(ws);
      return ws;
    };
    const pomWith = (dependency: string) => `<project><modelVersion>4.0.0</modelVersion>
    <groupId>demo</groupId><artifactId>failing</artifactId><version>1</version>
    <dependencies><dependency>${dependency}</dependency></dependencies></project>\n`;

    it('a compile error fails the build step, with the compiler output', async () => {
      const ws = await fresh({ fixture: 'compile-error' });
      const install = await java.install(ws.ctx);
      assert.deepEqual(pins(install.installed), ['gson@2.10.1']);
      await assert.rejects(java.build!(ws.ctx, install), (err: unknown) => {
        assert.ok(err instanceof StepFailedError);
        assert.equal(err.step, 'build');
        assert.equal(err.failureClass, 'other');
        assert.match(err.message, /does not compile/);
        assert.match(err.output, /Broken\.java/);
        assert.equal(classifyStepFailure(err.step, err.failureClass, err.output), 'code-bug');
        return true;
      });
    });

    it('code importing an undeclared package fails the build as a missing dependency', async () => {
      const ws = await fresh({ fixture: 'undeclared-import' });
      const install = await java.install(ws.ctx);
      await assert.rejects(java.build!(ws.ctx, install), (err: unknown) => {
        assert.ok(err instanceof StepFailedError);
        assert.match(err.output, /package org\.apache\.commons\.lang3 does not exist/);
        assert.equal(classifyStepFailure(err.step, err.failureClass, err.output), 'missing-dependency');
        return true;
      });
    });

    it('a program that crashes: non-zero exit, layers still computed', async () => {
      const ws = await fresh({ fixture: 'crash' });
      const install = await java.install(ws.ctx);
      await java.build!(ws.ctx, install);
      const run = await java.defaultRun(ws.ctx, install);
      assert.match(run.reason, /Main-Class of crash-1\.0\.0\.jar/);
      const t = await trace(ws, run);
      assert.equal(t.run.exitCode, 1);
      assert.match(t.run.stderr, /IllegalStateException: demonstration failure/);
      const d3 = await java.attribute(t.files, ws.ctx, install);
      assert.deepEqual(pins(d3.traced), ['gson@2.10.1']);
    });

    it('an artifact that does not exist: no-such-package', async () => {
      const ws = await fresh({ files: { 'pom.xml': pomWith('<groupId>com.google.code.gson</groupId><artifactId>gson-envproof-no-such</artifactId><version>1.0</version>') } });
      await assert.rejects(java.install(ws.ctx), (err: unknown) => {
        assert.ok(err instanceof StepFailedError);
        assert.equal(err.step, 'install');
        assert.equal(err.failureClass, 'no-such-package');
        assert.match(err.message, /gson-envproof-no-such/);
        return true;
      });
    });

    it('a version that does not exist of an artifact that does: no-matching-version', async () => {
      const ws = await fresh({ files: { 'pom.xml': pomWith('<groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>99.0.404</version>') } });
      await assert.rejects(java.install(ws.ctx), (err: unknown) => {
        assert.ok(err instanceof StepFailedError);
        assert.equal(err.failureClass, 'no-matching-version');
        return true;
      });
    });

    it('a dependency without a version: build-configuration', async () => {
      const ws = await fresh({ files: { 'pom.xml': pomWith('<groupId>com.google.code.gson</groupId><artifactId>gson</artifactId>') } });
      await assert.rejects(java.install(ws.ctx), (err: unknown) => {
        assert.ok(err instanceof StepFailedError);
        assert.equal(err.failureClass, 'build-configuration');
        assert.match(err.output, /version.*is missing/);
        return true;
      });
    });

    it('no main class anywhere: a clear error asking for --run', async () => {
      const ws = await fresh({ files: { 'pom.xml': pomWith('<groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>2.10.1</version>') } });
      await assert.rejects(java.defaultRun(ws.ctx, { installed: [], commands: [], durationMs: 0, details: { resolved: [] } }), (err: unknown) => {
        assert.ok(err instanceof NoEntryPointError);
        assert.match(err.message, /no main class found/);
        assert.match(err.hint ?? '', /--run/);
        return true;
      });
    });
  });
});
