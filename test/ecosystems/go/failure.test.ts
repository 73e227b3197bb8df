// tier: quick
/** The go command's failure messages (as go1.26 prints them) and their classes; the proxy unreachable for real. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyGoFailure, goFailingEndpoints, notFoundModule, toolchainTooOld } from '../../../src/ecosystems/go/failure.js';
import { downloadFailureClass } from '../../../src/ecosystems/registry.js';
import { GO_PROXY } from '../../../src/ecosystems/go/go-env.js';

const REFUSED = 'go: rsc.io/quote@v1.5.1: Get "http://127.0.0.1:1/rsc.io/quote/@v/v1.5.1.mod": dial tcp 127.0.0.1:1: connect: connection refused\n';
const NO_HOST = 'go: rsc.io/quote@v1.5.1: Get "https://nonexistent.invalid/rsc.io/quote/@v/v1.5.1.mod": dial tcp: lookup nonexistent.invalid on 10.255.255.53:53: no such host\n';

describe('go failure messages', () => {
  it('a module the proxy refuses: no-such-package, naming the module', () => {
    for (const status of ['404 Not Found', '410 Gone', '403 Forbidden']) {
      const out = `go: github.com/x/nothing@v1.0.0: reading https://proxy.golang.org/github.com/x/nothing/@v/v1.0.0.mod: ${status}\n\tserver response: not found\n`;
      assert.equal(classifyGoFailure(out), 'no-such-package', status);
      assert.equal(notFoundModule(out)?.module, 'github.com/x/nothing');
    }
  });

  it('a go line newer than the toolchain, of go.mod or of a dependency', () => {
    const out = 'go: go.mod requires go >= 1.99 (running go 1.26.8; GOTOOLCHAIN=local)\n';
    assert.deepEqual(toolchainTooOld(out), { what: 'go.mod', needs: '1.99', running: '1.26.8' });
    assert.equal(toolchainTooOld('go: rsc.io/x@v1.0.0 requires go >= 1.30 (running go 1.26.8; GOTOOLCHAIN=local)\n')?.what, 'rsc.io/x@v1.0.0');
    assert.equal(classifyGoFailure(out), 'build-configuration');
  });

  it('a go.mod the go command rejects is build configuration; a checksum mismatch a fetch failure', () => {
    assert.equal(classifyGoFailure('go: errors parsing go.mod:\ngo.mod:5: require rsc.io/quote: version "v9.9.9" invalid: should be v0 or v1, not v9\n'), 'build-configuration');
    assert.equal(classifyGoFailure('verifying rsc.io/quote@v1.5.2: checksum mismatch\n\tdownloaded: h1:x\n\tgo.sum:     h1:y\n\nSECURITY ERROR\n'), 'fetch-failure');
  });

  it('connection errors name the endpoint; the configured proxy unreachable is the registry, another host the project', async () => {
    assert.equal(classifyGoFailure(REFUSED), 'network');
    assert.equal(classifyGoFailure(NO_HOST), 'network');
    assert.deepEqual(goFailingEndpoints(REFUSED), ['http://127.0.0.1:1/rsc.io/quote/@v/v1.5.1.mod']);
    assert.deepEqual(goFailingEndpoints(NO_HOST), ['https://nonexistent.invalid/rsc.io/quote/@v/v1.5.1.mod', 'nonexistent.invalid']);
    const saved = process.env.ENVPROOF_REGISTRY_GO;
    process.env.ENVPROOF_REGISTRY_GO = 'http://127.0.0.1:1';
    try {
      assert.equal(await downloadFailureClass(GO_PROXY, goFailingEndpoints(REFUSED)), 'registry-unreachable');
      assert.equal(await downloadFailureClass(GO_PROXY, goFailingEndpoints(NO_HOST)), 'fetch-failure');
    } finally {
      if (saved === undefined) delete process.env.ENVPROOF_REGISTRY_GO;
      else process.env.ENVPROOF_REGISTRY_GO = saved;
    }
  });
});
