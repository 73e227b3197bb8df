import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSandbox } from '../../src/sandbox/index.js';
import { filterRules, registryLoopbackPorts } from '../../src/sandbox/install-network.js';
import { buildEnvironment, isolatingBackends } from './helpers.js';

describe('which host loopback ports an install may reach', () => {
  it("only those of the registries envproof points installs at, from its own environment and the step's", () => {
    const own = { ENVPROOF_REGISTRY_NPM: 'http://localhost:4873/', ENVPROOF_REGISTRY_GO: 'http://127.0.0.1:3000,direct', HOME: 'http://127.0.0.1:9' };
    const step = { PIP_INDEX_URL: 'http://127.0.0.1:41234/simple', npm_config_registry: 'https://registry.npmjs.org/', NOTE: 'see 127.0.0.1:5432' };
    assert.deepEqual(registryLoopbackPorts(step, own), [3000, 4873, 41234]);
    assert.deepEqual(registryLoopbackPorts({}, { ENVPROOF_REGISTRY_PIP: 'https://pypi.org/simple' }), []);
  });

  it('rewrites exactly those ports to the host, and still rejects the rest of the loopback', () => {
    const rules = filterRules([], [41234]);
    assert.match(rules, /-A OUTPUT -d 127\.0\.0\.1\/32 -p tcp --dport 41234 -j DNAT --to-destination 10\.0\.2\.2:41234/);
    assert.match(rules, /-A OUTPUT -d 10\.0\.2\.2\/32 -p tcp --dport 41234 -j ACCEPT\n(?:.*\n)*-A OUTPUT -d 10\.0\.0\.0\/8 -j REJECT/);
    assert.doesNotMatch(filterRules([]), /\*nat/);
  });
});

/** A listener on the host's 127.0.0.1 that counts the requests that reach it. */
async function listener(): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('registry\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits: () => hits, close: () => new Promise((r) => server.close(() => r())) };
}

const FETCH = "import sys, urllib.request\ntry:\n  print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode().strip())\nexcept Exception as e:\n  print('refused', type(e).__name__)\n";

for (const { backend, skip } of isolatingBackends()) {
  describe(`an install step under ${backend}`, { skip }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-registries-'));
    let registry: Awaited<ReturnType<typeof listener>>;
    let service: Awaited<ReturnType<typeof listener>>;
    before(async () => {
      buildEnvironment('python', backend);
      registry = await listener();
      service = await listener();
    });
    after(async () => {
      await registry.close();
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('reaches a registry on the host loopback that it was pointed at, and no other service there', async () => {
      const sb = await createSandbox({ backend, language: 'python', hostWorkDir: dir });
      try {
        const fetch = (port: number) =>
          sb.exec({ argv: ['python3', '-c', FETCH, `http://127.0.0.1:${port}/`], cwd: sb.workDir, network: true, timeoutMs: 60_000, env: { PIP_INDEX_URL: `http://127.0.0.1:${registry.port}/simple` } });
        const toRegistry = await fetch(registry.port);
        assert.equal(toRegistry.stdout.trim(), 'registry', toRegistry.stderr);
        const toService = await fetch(service.port);
        assert.match(toService.stdout, /^refused/, toService.stderr);
        assert.equal(service.hits(), 0);
        assert.equal(registry.hits(), 1);
      } finally {
        await sb.dispose();
      }
    });
  });
}
