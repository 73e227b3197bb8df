import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bucketPath } from '../../src/ecosystems/javascript/cache.js';
import { layersRoot } from '../../src/sandbox/cache-layers.js';
import { sandboxCacheDir } from '../../src/sandbox/paths.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli.js';
import { buildEnvironment } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');
const GSON_POM = 'm2/com/google/code/gson/gson/2.10.1/gson-2.10.1.pom';
const IS_ODD_TARBALL = 'make-fetch-happen:request-cache:https://registry.npmjs.org/is-odd/-/is-odd-3.0.1.tgz';

function readOrNull(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

function installedNames(stdout: string): string[] {
  return (JSON.parse(stdout) as { layers: { installed: { name: string }[] } }).layers.installed.map((d) => d.name).sort();
}

describe('shared package caches', () => {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-caches-'));
  before(() => {
    for (const language of ['cpp', 'java', 'javascript']) buildEnvironment(language);
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("a build step that plants fake packages into the caches leaves the next run's layers unchanged", () => {
    const shared = sandboxCacheDir();
    // What plant.sh writes; other tests running meanwhile may publish the real files, never these.
    const fakeIntegrity = `sha512-${createHash('sha512').update('not the real is-odd').digest('base64')}`;

    // The build fails unless every plant landed where the build step could see it.
    const plant = runCli(['audit', path.join(FIXTURES, 'cpp-plant'), '--sandbox', 'bwrap', '--json'], { timeoutMs: 20 * 60_000 });
    assert.ok(plant.status === 0 || plant.status === 1, plant.stderr);
    assert.equal((JSON.parse(plant.stdout) as { run: { success: boolean } }).run.success, true);

    assert.doesNotMatch(readOrNull(path.join(shared, GSON_POM)) ?? '', /commons-lang3/, "gson's POM in the shared cache is not the planted one");
    assert.ok(!(readOrNull(path.join(shared, 'npm', bucketPath(IS_ODD_TARBALL))) ?? '').includes(fakeIntegrity), 'no fake is-odd entry in the npm index');
    assert.equal(existsSync(path.join(shared, 'pip/wheels/ff/ff/six-1.16.0-py2.py3-none-any.whl')), false);

    // By hand: gson 2.10.1 has no dependencies of its own; the planted POM would have added commons-lang3.
    const java = runCli(['audit', path.join(FIXTURES, 'java-app'), '--sandbox', 'bwrap', '--json'], { timeoutMs: 20 * 60_000 });
    assert.ok(java.status === 0 || java.status === 1, java.stderr);
    assert.deepEqual(installedNames(java.stdout), ['gson']);
  });

  it("publishes a run's registry downloads that the registry confirms, so the next run takes them from the cache", async () => {
    // A package no other test installs; its tarball's index entry is in the shared cache once a run installed it.
    const key = 'make-fetch-happen:request-cache:https://registry.npmjs.org/pad-left/-/pad-left-2.1.0.tgz';
    const install = async (name: string) => {
      const dir = path.join(scratch, name);
      mkdirSync(dir);
      const sb = await createSandbox({ backend: 'bwrap', language: 'javascript', hostWorkDir: dir });
      try {
        const script = 'mkdir p && cd p && echo {} > package.json && npm install --loglevel=http --no-audit --no-fund pad-left@2.1.0 2>&1';
        const r = await sb.exec({ argv: ['sh', '-c', script], cwd: sb.workDir, network: true, timeoutMs: 300_000 });
        assert.equal(r.exitCode, 0, r.stdout);
        return r.stdout;
      } finally {
        await sb.dispose();
      }
    };
    await install('first');
    // Published by the first install (or already by an earlier test run).
    const bucket = readOrNull(path.join(sandboxCacheDir(), 'npm', bucketPath(key)));
    assert.match(bucket ?? '', /"integrity":"sha512-/);
    const second = await install('second');
    assert.doesNotMatch(second, /GET 200 https:\/\/registry\.npmjs\.org\/pad-left\/-\/pad-left-2\.1\.0\.tgz/, 'the tarball came from the shared cache');
    assert.deepEqual(readdirSync(layersRoot()).filter((d) => d.startsWith(`${process.pid}-`)), [], 'layers are removed');
  });
});
