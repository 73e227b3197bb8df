/**
 * The audit's outputs and `envproof fix` on the Go fixture (go-fix, with envproof.config.json), one audit, plus
 * one audit per configured command alone. Known by hand: rsc.io/quote v1.5.2 requires rsc.io/sampler v1.3.0,
 * which requires golang.org/x/text v0.0.0-20170915032832-14c0d48ead0c (their go.mod files); cmd/hello imports
 * quote (so its binary links all three), cmd/uid imports github.com/google/uuid, cmd/extra (never run) imports
 * github.com/google/go-cmp, and nothing imports github.com/pkg/errors. x/text is required only `// indirect`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCliAsync } from '../helpers/cli.js';
import { auditFixture, checkFix, checkGithubAndMarkdown, checkSarif, checkSbom, checkSeveralOutputs, type AuditedFixture, type ExpectedOutputs } from './helpers.js';

const QUOTE = 'rsc.io/quote@v1.5.2';
const SAMPLER = 'rsc.io/sampler@v1.3.0';
const TEXT = 'golang.org/x/text@v0.0.0-20170915032832-14c0d48ead0c';
const UUID = 'github.com/google/uuid@v1.6.0';
const CMP = 'github.com/google/go-cmp@v0.6.0';
const ERRORS = 'github.com/pkg/errors@v0.9.1';
const name = (key: string) => key.slice(0, key.lastIndexOf('@'));

const expected: ExpectedOutputs = {
  manifest: 'go.mod',
  installed: [QUOTE, SAMPLER, TEXT, UUID, CMP, ERRORS],
  loaded: [QUOTE, SAMPLER, TEXT, UUID],
  loadedFiles: {
    ...Object.fromEntries([QUOTE, SAMPLER, TEXT].map((k) => [name(k), /^\$ENVPROOF_ENV\/bin\/hello$/])),
    [name(UUID)]: /^\$ENVPROOF_ENV\/bin\/uid$/,
  },
  edges: [
    [QUOTE, SAMPLER],
    [SAMPLER, TEXT],
  ],
  hashes: false, // go.sum's h1: hashes are carried as properties (checked below)
  // Each module's LICENSE: the Go authors' BSD-3-Clause for quote, sampler and x/text, Google's for uuid and go-cmp;
  // pkg/errors is BSD-2-Clause, which the matcher does not identify.
  licenses: { 'rsc.io/quote': 'BSD-3-Clause', 'rsc.io/sampler': 'BSD-3-Clause', 'golang.org/x/text': 'BSD-3-Clause', 'github.com/google/uuid': 'BSD-3-Clause', 'github.com/google/go-cmp': 'BSD-3-Clause', 'github.com/pkg/errors': null },
  findings: [
    { rule: 'phantom-unused', name: name(ERRORS), line: 'require github.com/pkg/errors' },
    { rule: 'phantom-not-traced', name: name(CMP), line: 'github.com/google/go-cmp v0.6.0', ignored: true },
    // Not imported, but go.mod must list every module of the build: hidden, not left as transitive information.
    { rule: 'hidden', name: name(SAMPLER) },
    { rule: 'hidden', name: name(TEXT) },
  ],
};

/** go.sum's lines as the test reads them: `path@version` → hash, `path@version/go.mod` → hash. */
function goSumLines(text: string): Map<string, string> {
  return new Map(text.split('\n').filter(Boolean).map((l) => {
    const [p, v, h] = l.split(' ');
    return [`${p}@${v}`, h!] as const;
  }));
}

/** RFC 4122 version 5 (SHA-1) UUID of a name in the URL namespace, as cmd/uid prints it. */
function uuidV5Url(nameText: string): string {
  const namespace = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');
  const b = createHash('sha1').update(namespace).update(nameText).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

describe('outputs: Go', () => {
  let a: AuditedFixture;
  before(async () => {
    a = await auditFixture('go-fix', ['go.mod', 'go.sum']);
  });
  after(() => a?.dispose());

  it('writes a CycloneDX 1.6 SBOM of D2 with evidence on exactly D3', () => checkSbom(a, expected));

  it('names the modules by golang purls and carries go.sum\'s h1: hashes as properties', () => {
    const sums = goSumLines(a.original['go.sum']!);
    for (const key of expected.installed) {
      const c = a.report.components.find((x: any) => `${x.name}@${x.version}` === key);
      const [ns, last] = [name(key).slice(0, name(key).lastIndexOf('/')), name(key).slice(name(key).lastIndexOf('/') + 1)];
      assert.equal(c.purl, `pkg:golang/${ns}/${last}@${key.slice(key.lastIndexOf('@') + 1)}`);
      assert.deepEqual(c.hashes, []);
      assert.equal(c.properties['go.sum/go.mod'], sums.get(`${key}/go.mod`), `${key}: go.mod's h1`);
      // The module's own h1 is in go.sum for every module whose code was downloaded.
      if (sums.has(key)) assert.equal(c.properties['go.sum'], sums.get(key), `${key}: the module's h1`);
    }
  });

  it('splits the phantoms: errors is imported nowhere, go-cmp only by cmd/extra, which no run starts', () => {
    const phantom = (n: string) => a.report.findings.find((f: any) => f.kind === 'phantom' && f.name === n);
    assert.equal(phantom(name(ERRORS)).phantom, 'unused');
    assert.equal(phantom(name(CMP)).phantom, 'not-traced');
    assert.deepEqual(phantom(name(CMP)).importedAt, ['cmd/extra/main.go:7']);
  });

  it('writes SARIF 2.1.0 with a result per finding on its manifest line', () => checkSarif(a, expected));
  it('writes GitHub annotations and a Markdown comment', () => checkGithubAndMarkdown(a, expected));
  it('writes several outputs in one audit, each as alone', () => checkSeveralOutputs(a));

  it('traces both configured commands: D3 is their union, and each command alone gives its part', async () => {
    assert.deepEqual(a.report.runs.map((r: any) => [r.command, r.success]), [['hello', true], ['uid', true]]);
    assert.match(a.report.runs[1].outputTail, new RegExp(uuidV5Url('https://example.com/envproof')));
    const tracedAlone = async (command: string) => {
      const r = await runCliAsync(['audit', a.dir, '--json', '--sandbox', 'host', '-q', '--run', command]);
      const report = JSON.parse(r.stdout);
      assert.deepEqual(report.runs.map((x: any) => x.command), [command]);
      return report.layers.traced.map((d: any) => `${d.name}@${d.version}`).sort();
    };
    const [hello, uid] = await Promise.all([tracedAlone('hello'), tracedAlone('uid')]);
    assert.deepEqual(hello, [QUOTE, SAMPLER, TEXT].sort());
    assert.deepEqual(uid, [UUID]);
    assert.deepEqual(a.report.layers.traced.map((d: any) => `${d.name}@${d.version}`).sort(), [...hello, ...uid].sort());
  });

  it('fix: removes the phantom, declares the hidden modules, the go command refreshes go.sum, the re-audit is clean', async () => {
    const goMod = a.original['go.mod']!;
    const want = goMod
      .replace('require github.com/pkg/errors v0.9.1 // never imported: a phantom\n', '')
      .replace('\trsc.io/quote v1.5.2\n)', '\trsc.io/quote v1.5.2\n\trsc.io/sampler v1.3.0\n)')
      .replace(`${name(TEXT)} v0.0.0-20170915032832-14c0d48ead0c // indirect`, `${name(TEXT)} v0.0.0-20170915032832-14c0d48ead0c`);
    assert.notEqual(want, goMod);
    // go.sum is the go command's to write: checked below by its lines, and by the go command itself.
    const result = await checkFix({ ...a, original: { 'go.mod': goMod } }, { 'go.mod': want });
    assert.deepEqual(result.refreshed, ['go.sum']);
    const sum = await readFile(path.join(a.dir, 'go.sum'), 'utf8');
    const withoutErrors = a.original['go.sum']!.split('\n').filter((l) => !l.startsWith('github.com/pkg/errors ')).join('\n');
    assert.equal(sum, withoutErrors, 'go.sum lost the removed module\'s lines and nothing else');
    // The go command finds every checksum it needs in go.sum (-mod=readonly adds none), in a fresh module cache.
    const cache = await mkdtemp(path.join(tmpdir(), 'envproof-gofix-modcache-'));
    try {
      const env = { ...process.env, GOFLAGS: '-mod=readonly -modcacherw', GOMODCACHE: cache, GOTOOLCHAIN: 'local', GOENV: 'off' };
      for (const args of [['list', '-deps', '-test', './...'], ['mod', 'verify']]) {
        const r = spawnSync('go', args, { cwd: a.dir, env, encoding: 'utf8' });
        assert.equal(r.status, 0, `go ${args.join(' ')}: ${r.stderr}`);
      }
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
