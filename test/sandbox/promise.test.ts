/**
 * Every clean environment has what the task prompts promise (docs/environments.md): the promised tools are run
 * inside the real environment, under bwrap and podman, and their versions compared with the promise. Then a
 * project that needs Node.js 20 (toSorted, import.meta.dirname, `engines: >=20.11`) is audited in the sandbox:
 * on the Node 18 the environment had before, it fails with "toSorted is not a function".
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EcosystemId } from '../../src/core/types.js';
import { NODE_RUNTIME } from '../../src/ecosystems/javascript/node-runtime.js';
import { ecosystemIds } from '../../src/ecosystems/index.js';
import { brokenPromises, measurePromise, toolVersions, versionAtLeast } from '../../src/ecosystems/promise.js';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { runCli } from '../helpers/cli.js';
import { buildEnvironment, isolatingBackends } from './helpers.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

for (const { backend, skip } of isolatingBackends()) {
  describe(`${backend}: every environment has what its prompt promises`, { skip }, () => {
    let scratch: string;
    const sandboxes: Sandbox[] = [];
    before(() => {
      for (const language of ecosystemIds()) buildEnvironment(language, backend);
      scratch = mkdtempSync(path.join(os.tmpdir(), 'envproof-promise-'));
    });
    after(async () => {
      for (const sb of sandboxes) await sb.dispose();
      rmSync(scratch, { recursive: true, force: true });
    });

    async function sandbox(language: EcosystemId): Promise<Sandbox> {
      const dir = path.join(scratch, `${language}-${sandboxes.length}`);
      mkdirSync(dir);
      const sb = await createSandbox({ backend, language, hostWorkDir: dir });
      sandboxes.push(sb);
      return sb;
    }

    const inside = (sb: Sandbox) => (argv: readonly string[]) => sb.exec({ argv: [...argv], cwd: sb.workDir, timeoutMs: 120_000, network: false });

    for (const language of ecosystemIds()) {
      it(`${language}: the promised tools run, at the promised versions`, async () => {
        const sb = await sandbox(language);
        const results = await measurePromise(language, inside(sb));
        assert.deepEqual(brokenPromises(results), [], JSON.stringify(results));
        // Where the build recorded the versions (the identity reports and stores carry), they are the ones that run.
        if (sb.baseline?.tools) assert.deepEqual(sb.baseline.tools, toolVersions(results));
      });
    }

    it('javascript: node is the pinned Node.js 20 from the npm registry, not Debian\'s, and npm runs on it', async () => {
      const sb = await sandbox('javascript');
      const run = inside(sb);
      // Asked of the runtime itself, not read from --version output.
      const node = await run(['node', '-p', 'process.versions.node + " " + process.execPath']);
      assert.equal(node.stdout.trim(), `${NODE_RUNTIME.node.version} /usr/local/bin/node`, node.stderr);
      assert.ok(versionAtLeast(node.stdout, '20'));
      const npm = await run(['npm', 'exec', '--offline', '--', 'node', '-p', 'process.versions.node']);
      assert.equal(npm.stdout.trim(), NODE_RUNTIME.node.version, npm.stderr);
      const which = await run(['sh', '-c', 'command -v npm; ls /usr/bin/node /usr/bin/nodejs 2>&1 || true']);
      assert.match(which.stdout, /^\/usr\/local\/bin\/npm\n/);
      assert.match(which.stdout, /No such file/, "Debian's nodejs is not in the environment");
    });
  });
}

describe('a project that needs Node.js 20, audited in the sandbox', () => {
  before(() => buildEnvironment('javascript', 'bwrap'));

  it('installs, runs and traces (on Node 18 it would fail: [].toSorted is not a function)', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'js-node20'), '--json', '--sandbox', 'bwrap', '-q'], { timeoutMs: 20 * 60_000 });
    let report;
    try {
      report = JSON.parse(r.stdout);
    } catch {
      throw new Error(`no audit report (exit ${r.status}):\n${r.stderr}`);
    }
    assert.equal(report.run.success, true, report.run.outputTail);
    // By hand: [3,1,2].toSorted() is 1,2,3; 1 is odd; the fixture's folder is a copy named by the audit.
    assert.match(report.run.outputTail, /^1,2,3 odd \S+/m);
    // By hand: is-odd@3.0.1 depends on is-number ^6.0.0; importing is-odd loads is-number.
    assert.deepEqual(report.layers.traced.map((d: { name: string }) => d.name).sort(), ['is-number', 'is-odd']);
    assert.equal(report.sandbox.tools.node, NODE_RUNTIME.node.version);
  });
});
