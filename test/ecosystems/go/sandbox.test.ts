/**
 * The Go environment of the bwrap sandbox, built for real: Debian plus the toolchain from the module proxy (its h1:
 * hash checked), and an audit in it. The expected layers are the ones worked out by hand for the fixture
 * (test/ecosystems/go/ecosystem.test.ts says how).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { goEnv } from '../../../src/ecosystems/go/go-env.js';
import { stdCacheRoot } from '../../../src/ecosystems/go/std-cache.js';
import { GO_TOOLCHAIN } from '../../../src/ecosystems/go/toolchain.js';
import { readEnvironment } from '../../../src/sandbox/rootfs.js';
import { runCli } from '../../helpers/cli.js';
import { buildEnvironment } from '../../sandbox/helpers.js';
import { FIXTURES } from './helpers.js';

describe('Go in the bwrap sandbox', () => {
  before(() => buildEnvironment('go'));

  it('the environment holds the pinned toolchain, linked into /usr/local/bin, and records it in its recipe', async () => {
    const env = await readEnvironment('go');
    assert.ok(env, 'the go environment is built');
    assert.ok(env.marker.requested.includes(`${GO_TOOLCHAIN.module}@${GO_TOOLCHAIN.moduleVersion}`));
    assert.equal(readlinkSync(path.join(env.dir, 'usr/local/bin/go')), '/usr/local/go/bin/go');
    const version = execFileSync('bwrap', ['--ro-bind', env.dir, '/', '--proc', '/proc', '--dev', '/dev', '--unshare-net', 'go', 'version'], { encoding: 'utf8' });
    assert.equal(version.trim(), `go version ${GO_TOOLCHAIN.version} linux/amd64`);
    assert.ok(env.marker.debian.gcc, 'gcc for cgo');
    assert.equal(env.marker.debian['golang-go'], undefined, "Debian's golang is not used");
  });

  it('an audit there: D2 resolved through the proxy and checked against the checksum database, D3 from the binary', () => {
    const r = runCli(['audit', path.join(FIXTURES, 'modules'), '--json', '--sandbox', 'bwrap', '--timeout', '600'], { timeoutMs: 20 * 60_000 });
    assert.equal(r.status, 1, r.stderr); // findings: the phantom and the hidden modules
    const report = JSON.parse(r.stdout) as { sandbox: { backend: string }; layers: Record<string, { name: string }[]>; gaps: Record<string, string[]>; run: { success: boolean; outputTail: string } };
    assert.equal(report.sandbox.backend, 'bwrap');
    assert.equal(report.run.success, true);
    assert.equal(report.run.outputTail, 'hello from modules\nAhoy, world!\n');
    const names = (k: string) => report.layers[k]!.map((d) => d.name).sort();
    assert.deepEqual(names('declared'), ['github.com/google/uuid', 'rsc.io/quote']);
    assert.deepEqual(names('installed'), ['github.com/google/uuid', 'golang.org/x/text', 'rsc.io/quote', 'rsc.io/sampler']);
    assert.deepEqual(names('traced'), ['golang.org/x/text', 'rsc.io/quote', 'rsc.io/sampler']);
    assert.deepEqual(report.gaps.phantom, ['github.com/google/uuid']);
    assert.deepEqual(report.gaps.hidden, ['golang.org/x/text', 'rsc.io/sampler']);
  });

  it('--run "go run ." gets the install\'s go environment: offline, from its module cache, its build cache private, no proxy', () => {
    // The traced run has no network: the modules come from the install's GOMODCACHE or nowhere. What the command
    // plants in its GOCACHE must not reach the trusted standard-library cache later audits are seeded from.
    const command = 'go run . && go env GOMODCACHE GOFLAGS GOPROXY && echo planted > "$(go env GOCACHE)/planted"';
    const r = runCli(['audit', path.join(FIXTURES, 'modules'), '--json', '--sandbox', 'bwrap', '--timeout', '600', '--run', command], { timeoutMs: 20 * 60_000 });
    assert.notEqual(r.status, 2, r.stderr);
    const report = JSON.parse(r.stdout) as { run: { success: boolean; outputTail: string; isolation: { networkOff: boolean } } };
    assert.equal(report.run.isolation.networkOff, true);
    assert.equal(report.run.success, true, report.run.outputTail);
    const lines = report.run.outputTail.trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['hello from modules', 'Ahoy, world!']);
    assert.match(lines[2] ?? '', /\/env\/go\/mod$/);
    assert.equal(lines[3], '-mod=mod -modcacherw -buildvcs=false');
    assert.equal(lines[4], 'off', "the run is not given this machine's module proxy");
    const seeds = readdirSync(stdCacheRoot());
    assert.ok(seeds.length > 0, 'the standard library was built once into the shared cache');
    for (const seed of seeds) assert.ok(!readdirSync(path.join(stdCacheRoot(), seed)).includes('planted'), `${seed} holds what the program planted`);
  });

  it('the seed holds the standard library\'s vet facts: a go test started from it vets its own package and nothing else', async () => {
    const env = await readEnvironment('go');
    const seeds = readdirSync(stdCacheRoot()).map((s) => path.join(stdCacheRoot(), s));
    const newest = seeds.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    assert.ok(env && newest, 'the audits above built the environment and the seed');
    const work = mkdtempSync(path.join(tmpdir(), 'envproof-vet-facts-'));
    try {
      cpSync(newest, path.join(work, 'cache'), { recursive: true });
      writeFileSync(path.join(work, 'go.mod'), 'module example.com/vetted\n\ngo 1.22\n');
      writeFileSync(path.join(work, 'words_test.go'), 'package vetted\n\nimport (\n\t"os"\n\t"strings"\n\t"testing"\n)\n\nfunc TestWords(t *testing.T) {\n\tif strings.ToUpper(os.Args[0][:0]+"a") != "A" {\n\t\tt.Fatal("upper")\n\t}\n}\n');
      const vars = { ...goEnv('/tmp/w/env'), GOCACHE: '/tmp/w/cache', GOPROXY: 'off', HOME: '/tmp/w' };
      const argv = ['--ro-bind', env.dir, '/', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', work, '/tmp/w', '--chdir', '/tmp/w', '--unshare-net', '--clearenv'];
      for (const [k, v] of Object.entries({ ...vars, PATH: '/usr/local/bin:/usr/bin:/bin' })) argv.push('--setenv', k, v);
      // -x prints each tool the go command runs: vet once, for the tested package; every standard package's facts come from the seed.
      const trace = execFileSync('bwrap', [...argv, 'sh', '-c', 'go test -x . 2>&1'], { encoding: 'utf8' });
      assert.match(trace, /^ok\s+example\.com\/vetted/m);
      const vets = trace.split('\n').filter((l) => /\/vet\s.*vet\.cfg$/.test(l));
      assert.equal(vets.length, 1, vets.join('\n'));
      assert.doesNotMatch(vets[0]!, /-unsafeptr=false/, 'the one vet run is of the tested package, not a standard one');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
