/**
 * D1 on real published POMs, checked against Maven's own answer: `dependency:list -DexcludeTransitive=true` gives
 * the direct compile and runtime dependencies with the versions Maven's model builder chose (parents fetched from
 * the repository, properties, dependencyManagement, imported BOMs). envproof reads the same POM itself.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cacheRoot } from '../../../src/core/cache.js';
import { extractJavaDeclared } from '../../../src/ecosystems/java/declared.js';
import { MAVEN_JVM_OPTIONS } from '../../../src/ecosystems/java/facts.js';

const REPO = path.join(cacheRoot(), 'm2');
const PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1';

function mvn(cwd: string, args: string[]): void {
  const r = spawnSync('mvn', ['-B', '-q', `-Dmaven.repo.local=${REPO}`, ...args], { cwd, encoding: 'utf8', timeout: 600_000, env: { ...process.env, MAVEN_OPTS: MAVEN_JVM_OPTIONS } });
  assert.equal(r.status, 0, `mvn ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
}

/** Maven's direct compile/runtime dependencies of a published POM, and envproof's D1 of a copy of it. */
async function both(groupId: string, artifactId: string, version: string): Promise<{ maven: string[]; envproof: string[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'envproof-realpom-'));
  try {
    mvn(dir, [`${PLUGIN}:get`, `-Dartifact=${groupId}:${artifactId}:${version}:pom`, '-Dtransitive=false']);
    await copyFile(path.join(REPO, ...groupId.split('.'), artifactId, version, `${artifactId}-${version}.pom`), path.join(dir, 'pom.xml'));
    // Building the model fetches the parents into the cache (cacheRoot()/m2), where envproof looks for them too.
    mvn(dir, [`${PLUGIN}:list`, '-DexcludeTransitive=true', `-DoutputFile=${path.join(dir, 'direct.txt')}`]);
    const maven = (await readFile(path.join(dir, 'direct.txt'), 'utf8'))
      .split('\n')
      .map((l) => /^\s+([^:\s]+):([^:\s]+):[^:\s]+:([^:\s]+):(compile|runtime)\b/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => `${m[1]}:${m[2]}@${m[3]}`)
      .sort();
    const envproof = (await extractJavaDeclared(dir)).declared.map((d) => `${d.id}@${d.version}`).sort();
    return { maven, envproof };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('Java D1 agrees with Maven on published POMs', { concurrency: true }, () => {
  it('maven-shade-plugin 3.5.3: versions from a three-level parent chain and its properties', async () => {
    const { maven, envproof } = await both('org.apache.maven.plugins', 'maven-shade-plugin', '3.5.3');
    assert.ok(maven.length >= 10, maven.join('\n'));
    assert.deepEqual(envproof, maven);
  });

  it('jackson-databind 2.17.2: versions from properties of jackson-base and its BOM parent', async () => {
    const { maven, envproof } = await both('com.fasterxml.jackson.core', 'jackson-databind', '2.17.2');
    assert.deepEqual(maven, ['com.fasterxml.jackson.core:jackson-annotations@2.17.2', 'com.fasterxml.jackson.core:jackson-core@2.17.2']);
    assert.deepEqual(envproof, maven);
  });
});
