// tier: quick
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EnvproofError } from '../../../src/core/errors.js';
import { extractDeclared } from '../../../src/ecosystems/javascript/manifest.js';
import { FIXTURES } from './helpers.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'envproof-js-manifest-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** D1 of a package.json given as text (or bytes). */
async function declare(content: string | Buffer) {
  await writeFile(path.join(dir, 'package.json'), content);
  return extractDeclared(dir);
}

async function declareError(content: string | Buffer): Promise<EnvproofError> {
  const err = await declare(content).then(
    () => assert.fail('expected an EnvproofError'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof EnvproofError, `not an EnvproofError: ${String(err)}`);
  return err;
}

describe('javascript D1: fixtures', () => {
  it('chalk-hidden declares chalk and left-pad, exact versions', async () => {
    const d1 = await extractDeclared(path.join(FIXTURES, 'chalk-hidden'));
    assert.deepEqual(
      d1.declared.map((d) => [d.name, d.version, d.id]),
      [
        ['chalk', '4.1.2', '4.1.2'],
        ['left-pad', '1.3.0', '1.3.0'],
      ],
    );
    assert.equal(d1.manifest, 'package.json');
    assert.deepEqual(d1.other, {});
  });

  it('scoped-dev: scoped name, alias key with its real spec, devDependencies outside D1', async () => {
    const d1 = await extractDeclared(path.join(FIXTURES, 'scoped-dev'));
    assert.deepEqual(
      d1.declared.map((d) => [d.name, d.version, d.id]),
      [
        ['@sindresorhus/is', '4.6.0', '4.6.0'],
        ['pad', '1.3.0', 'npm:left-pad@1.3.0'],
      ],
    );
    assert.deepEqual(Object.keys(d1.other), ['devDependencies']);
    assert.deepEqual(d1.other.devDependencies?.map((d) => d.name), ['is-odd']);
  });
});

describe('javascript D1: spec forms', () => {
  it('keeps every non-registry spec under its key, with the raw spec in id', async () => {
    const specs = {
      alias: 'npm:@scope/real@^1.2.0',
      local: 'file:../local',
      linked: 'link:./packages/linked',
      gitplus: 'git+https://example.com/u/r.git#v1',
      gh: 'github:user/repo',
      short: 'user/repo',
      tarball: 'https://example.com/t-1.0.0.tgz',
      ws: 'workspace:*',
      tag: 'latest',
      range: '>=1 <3',
    };
    const d1 = await declare(JSON.stringify({ dependencies: specs }));
    assert.deepEqual(
      d1.declared.map((d) => [d.name, d.id]),
      Object.entries(specs),
    );
    assert.ok(d1.declared.every((d) => d.version === undefined), 'no exact version in any of these specs');
    assert.deepEqual(d1.skipped, []);
  });

  it('reads exact versions with = or v prefix, pre-release and build metadata', async () => {
    const d1 = await declare(JSON.stringify({ dependencies: { a: '=1.0.0', b: 'v2.0.0-rc.1', c: '3.0.0+build.5', d: '^4.0.0' } }));
    assert.deepEqual(
      d1.declared.map((d) => d.version),
      ['1.0.0', '2.0.0-rc.1', '3.0.0+build.5', undefined],
    );
  });

  it('skips invalid names and non-string specs with a typed reason', async () => {
    const d1 = await declare(
      JSON.stringify({
        dependencies: {
          good: '1.0.0',
          '.hidden': '1.0.0',
          _under: '1.0.0',
          'has space': '1.0.0',
          '@scope/': '1.0.0',
          node_modules: '1.0.0',
          badalias: 'npm:',
          objectSpec: { version: '1' },
          JSONStream: '1.3.5',
        },
      }),
    );
    assert.deepEqual(
      d1.declared.map((d) => d.name),
      ['good', 'JSONStream'],
    );
    assert.deepEqual(
      d1.skipped.map((s) => [s.raw.split('"')[1], s.reason]),
      [
        ['.hidden', 'invalid-name'],
        ['_under', 'invalid-name'],
        ['has space', 'invalid-name'],
        ['@scope/', 'invalid-name'],
        ['node_modules', 'invalid-name'],
        ['badalias', 'invalid-name'],
        ['objectSpec', 'unsupported-syntax'],
      ],
    );
    assert.ok(d1.skipped.every((s) => s.source === 'package.json dependencies'));
  });
});

describe('javascript D1: groups that are not declarations', () => {
  it('reports dev, optional, peer and bundled dependencies in other, never in D1', async () => {
    const d1 = await declare(
      JSON.stringify({
        dependencies: { a: '1.0.0', b: '1.0.0' },
        devDependencies: { dev1: '^1', '@types/node': '20.0.0' },
        optionalDependencies: { opt: '1.0.0', b: '1.0.0' },
        peerDependencies: { peer: '>=2' },
        bundleDependencies: ['a'],
      }),
    );
    assert.deepEqual(
      d1.declared.map((d) => d.name),
      ['a', 'b'],
    );
    assert.deepEqual(
      Object.fromEntries(Object.entries(d1.other).map(([k, v]) => [k, v.map((d) => d.name)])),
      {
        devDependencies: ['dev1', '@types/node'],
        optionalDependencies: ['opt', 'b'],
        peerDependencies: ['peer'],
        bundleDependencies: ['a'],
      },
    );
    assert.match(d1.notes.join('\n'), /both dependencies and optionalDependencies.*: b$/m);
  });

  it('bundledDependencies: true means every dependency', async () => {
    const d1 = await declare(JSON.stringify({ dependencies: { x: '1.0.0', y: '2.0.0' }, bundledDependencies: true }));
    assert.deepEqual(d1.other.bundleDependencies?.map((d) => d.name), ['x', 'y']);
  });

  it('a package.json without dependencies declares nothing', async () => {
    const d1 = await declare('{"name": "empty"}');
    assert.deepEqual(d1.declared, []);
    assert.deepEqual(d1.skipped, []);
  });

  it('accepts a UTF-8 byte-order mark, as npm does', async () => {
    const d1 = await declare(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"dependencies":{"a":"1.0.0"}}')]));
    assert.deepEqual(
      d1.declared.map((d) => d.name),
      ['a'],
    );
  });
});

describe('javascript D1: unusable package.json', () => {
  it('invalid JSON names the file and the line and column', async () => {
    const err = await declareError('{\n  "dependencies": {\n    "a": "1.0.0",\n  }\n}\n');
    assert.match(err.message, /package\.json is not valid JSON/);
    assert.match(err.message, /line 4, column 3/);
    assert.ok(err.message.includes(path.join(dir, 'package.json')));
  });

  it('truncated JSON points at its end', async () => {
    const err = await declareError('{"dependencies": {');
    assert.match(err.message, /line 1, column 19/);
  });

  it('a JSON array or string is not a package.json', async () => {
    assert.match((await declareError('["a"]')).message, /must contain a JSON object, not an array/);
    assert.match((await declareError('"x"')).message, /must contain a JSON object, not string/);
    assert.match((await declareError('null')).message, /not null/);
  });

  it('dependencies must be an object', async () => {
    assert.match((await declareError('{"dependencies": ["a", "b"]}')).message, /"dependencies" must be an object.*not an array/);
    assert.match((await declareError('{"dependencies": "a"}')).message, /not string/);
  });

  it('binary and non-UTF-8 files are refused', async () => {
    assert.match((await declareError(Buffer.from([0x7b, 0x00, 0x7d]))).message, /not a text file/);
    assert.match((await declareError(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).message, /not valid UTF-8/);
  });

  it('a missing package.json is an error with a hint', async () => {
    const err = await extractDeclared(path.join(dir, 'nowhere')).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof EnvproofError);
    assert.match(err.message, /no package\.json at/);
    assert.ok(err.hint);
  });

  it('an unreadable package.json (a directory) is an EnvproofError', async () => {
    const sub = await mkdtemp(path.join(dir, 'sub-'));
    await mkdir(path.join(sub, 'package.json'));
    const err = await extractDeclared(sub).catch((e: unknown) => e);
    assert.ok(err instanceof EnvproofError);
    assert.match(err.message, /cannot read/);
  });
});
