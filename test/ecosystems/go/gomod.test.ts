// tier: quick
/** The go.mod parser and D1 on hand-written files: odd formatting, comments, blocks, replace/exclude, bad input. */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { EnvproofError } from '../../../src/core/errors.js';
import { extractGoDeclared } from '../../../src/ecosystems/go/declared.js';
import { parseGoMod } from '../../../src/ecosystems/go/gomod.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function declaredOf(goMod: string, files: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'envproof-gomod-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'go.mod'), goMod);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return extractGoDeclared(dir);
}

describe('parseGoMod', () => {
  it('reads single lines and blocks, with comments, tabs, quotes and `// indirect`', () => {
    const mod = parseGoMod(
      [
        '// a comment before everything',
        'module   "example.com/odd"   // trailing comment',
        '',
        'go 1.22.3',
        'toolchain go1.23.1',
        'require rsc.io/quote v1.5.2',
        'require(',
        '\t// a comment line inside the block',
        '\tgolang.org/x/text v0.14.0 // indirect',
        '    github.com/google/uuid    v1.6.0 // indirect; needed by a test',
        '\t`github.com/pkg/errors` v0.9.1',
        ')',
        'require ()',
        'retract [v1.0.0, v1.0.5] // retract ranges are not read',
        'godebug (',
        '\tdefault=go1.21',
        ')',
      ].join('\r\n'),
    );
    assert.equal(mod.module, 'example.com/odd');
    assert.equal(mod.go, '1.22.3');
    assert.equal(mod.toolchain, 'go1.23.1');
    assert.deepEqual(
      mod.require.map((r) => [r.path, r.version, r.indirect, r.line]),
      [
        ['rsc.io/quote', 'v1.5.2', false, 6],
        ['golang.org/x/text', 'v0.14.0', true, 9],
        ['github.com/google/uuid', 'v1.6.0', true, 10],
        ['github.com/pkg/errors', 'v0.9.1', false, 11],
      ],
    );
  });

  it('reads replacements by a module (all versions or one) and by a directory, and exclusions', () => {
    const mod = parseGoMod(
      ['module m', 'replace (', '\ta.example/x => b.example/x v1.2.0', '\ta.example/y v1.0.0 => ../y', ')', 'replace c.example/z => /abs/z', 'exclude a.example/x v1.1.0'].join('\n'),
    );
    assert.deepEqual(mod.replace, [
      { from: { path: 'a.example/x' }, to: { path: 'b.example/x', version: 'v1.2.0', directory: false }, line: 3 },
      { from: { path: 'a.example/y', version: 'v1.0.0' }, to: { path: '../y', directory: true }, line: 4 },
      { from: { path: 'c.example/z' }, to: { path: '/abs/z', directory: true }, line: 6 },
    ]);
    assert.deepEqual(mod.exclude, [{ path: 'a.example/x', version: 'v1.1.0', line: 7 }]);
  });

  const bad: [string, string, RegExp][] = [
    ['no module line', 'go 1.22\nrequire a.example/x v1.0.0\n', /go\.mod: no module declaration/],
    ['an unknown directive', 'module m\nrequires a.example/x v1.0.0\n', /go\.mod:2: unknown directive: requires/],
    ['a require without a version', 'module m\nrequire a.example/x\n', /go\.mod:2: usage: require/],
    ['an unclosed block', 'module m\nrequire (\n\ta.example/x v1.0.0\n', /go\.mod:2: the require block opened here is never closed/],
    ['an unterminated string', 'module "m\n', /go\.mod:1: unterminated quoted string/],
    ['a directory replacement with a version', 'module m\nreplace a.example/x => ./x v1.0.0\n', /go\.mod:2: replacement directory \.\/x cannot have a version/],
    ['a module replacement without a version', 'module m\nreplace a.example/x => b.example/x\n', /go\.mod:2: replacement module b\.example\/x needs a version/],
    ['a malformed module path', 'module m\nrequire a.example/x@latest v1.0.0\n', /go\.mod:2: malformed module path "a\.example\/x@latest"/],
    ['a bad go line', 'module m\ngo one.two\n', /go\.mod:2: usage: go 1\.23/],
    ['two module lines', 'module m\nmodule n\n', /go\.mod:2: repeated module statement/],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what} with the line`, () => {
      assert.throws(
        () => parseGoMod(text),
        (err: unknown) => err instanceof EnvproofError && message.test(err.message) && /go mod edit -fmt|module <module path>/.test(err.hint ?? ''),
      );
    });
  }
});

describe('extractGoDeclared (D1)', () => {
  it('counts the direct requires; indirect and excluded are other groups; a directory replacement is the project itself', async () => {
    const d = await declaredOf(
      [
        'module example.com/app',
        'go 1.22',
        'require (',
        '\trsc.io/quote v1.5.2',
        '\texample.com/lib v0.0.0',
        '\tgolang.org/x/text v0.14.0 // indirect',
        '\tgithub.com/pkg/errors v0.9.0',
        '\tgithub.com/google/uuid master',
        ')',
        'replace example.com/lib => ./lib',
        'replace rsc.io/quote => github.com/fork/quote v1.5.3',
        'replace unused.example/m => ./m',
        'exclude github.com/pkg/errors v0.9.0',
      ].join('\n'),
    );
    assert.equal(d.manifest, 'go.mod');
    assert.deepEqual(
      d.declared.map((x) => [x.name, x.version, x.id, x.source]),
      [
        ['rsc.io/quote', 'v1.5.2', 'rsc.io/quote => github.com/fork/quote v1.5.3', 'go.mod:4'],
        ['github.com/pkg/errors', undefined, undefined, 'go.mod:7'],
        ['github.com/google/uuid', undefined, undefined, 'go.mod:8'],
      ],
    );
    assert.deepEqual(d.other.indirect?.map((x) => x.name), ['golang.org/x/text']);
    assert.deepEqual(d.other.exclude?.map((x) => `${x.name}@${x.version}`), ['github.com/pkg/errors@v0.9.0']);
    assert.deepEqual(d.skipped.map((s) => [s.raw, s.reason, s.source]), [['require example.com/lib v0.0.0', 'local-path', 'go.mod:5']]);
    assert.deepEqual(d.own, ['example.com/app', 'example.com/lib', 'unused.example/m']);
    assert.ok(d.notes.some((n) => /go\.mod:7: github\.com\/pkg\/errors v0\.9\.0 is excluded/.test(n)));
    assert.ok(d.notes.some((n) => /go\.mod:8: .* master is not a canonical module version/.test(n)));
    assert.ok(d.notes.some((n) => /go\.mod:12: the replacement of unused\.example\/m applies to no require line/.test(n)));
    assert.ok(d.notes.some((n) => /no go\.sum/.test(n)));
  });

  it('a replacement of one version applies only to that version', async () => {
    const d = await declaredOf('module m\nrequire a.example/x v1.0.0\nreplace a.example/x v0.9.0 => ./x\n', { 'go.sum': '' });
    assert.deepEqual(d.declared.map((x) => [x.name, x.id]), [['a.example/x', undefined]]);
    assert.deepEqual(d.skipped, []);
    assert.equal(d.notes.some((n) => /go\.sum/.test(n)), false);
  });

  it('a missing go.mod is a clear error', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'envproof-gomod-'));
    dirs.push(dir);
    await assert.rejects(extractGoDeclared(dir), (err: unknown) => err instanceof EnvproofError && /cannot read .*go\.mod: no such file/.test(err.message));
  });
});
