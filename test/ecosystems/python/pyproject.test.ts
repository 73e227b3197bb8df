// tier: quick
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { EnvproofError } from '../../../src/core/errors.js';
import { extractPythonDeclared } from '../../../src/ecosystems/python/declared.js';
import { DEFAULT_MARKER_ENV } from '../../../src/ecosystems/python/markers.js';
import { poetryConstraint } from '../../../src/ecosystems/python/pyproject.js';
import { dep, FIXTURES, names, project, removeProjects, skips } from './helpers.js';

after(removeProjects);

const S = 'pyproject.toml:project.dependencies';

test('PEP 621: [project].dependencies declared, markers evaluated, optional-dependencies apart', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'pyproject-pep621'));
  assert.equal(r.manifest, 'pyproject.toml');
  assert.deepEqual(
    r.declared.map((d) => [d.name, d.version, d.id, d.source]),
    [
      ['requests', undefined, 'requests[socks]>=2.31,<3', `${S}[0]`],
      ['numpy', '1.26.4', 'numpy==1.26.4', `${S}[1]`],
      ['uvloop', undefined, undefined, `${S}[5]`],
      ['django-contrib-foo', undefined, undefined, `${S}[6]`],
      ['mylib', undefined, 'mylib @ https://example.com/mylib-1.0.tar.gz', `${S}[9]`],
    ],
  );
  assert.deepEqual(skips(r), [
    `marker-excluded @ ${S}[2]`,
    `marker-excluded @ ${S}[3]`,
    `marker-excluded @ ${S}[4]`,
    `invalid-name @ ${S}[7]`,
    `unsupported-syntax @ ${S}[8]`,
  ]);
  assert.deepEqual(Object.keys(r.other).sort(), ['optional:dev-tools', 'optional:docs']);
  assert.deepEqual(r.other['optional:dev-tools']!.map((d) => d.name), ['pytest', 'black'], "extra == 'dev-tools' holds while that extra is installed");
  assert.deepEqual(r.other['optional:docs']!.map((d) => d.name), ['sphinx']);
  assert.ok(!names(r).includes('ignored-by-envproof'), 'Poetry main dependencies are only a fallback');
});

test('PEP 621 markers follow the target interpreter', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'pyproject-pep621'), {
    markerEnv: { ...DEFAULT_MARKER_ENV, python_version: '3.10', python_full_version: '3.10.12' },
  });
  assert.deepEqual(names(r), ['requests', 'numpy', 'typing-extensions', 'tomli', 'uvloop', 'django-contrib-foo', 'mylib']);
});

test('Poetry fallback: python excluded, constraints and python/markers restrictions, optional deps and groups apart', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'pyproject-poetry'));
  const P = 'pyproject.toml:tool.poetry.dependencies';
  assert.deepEqual(
    r.declared.map((d) => [d.name, d.version, d.id, d.source]),
    [
      ['requests', undefined, 'requests (^2.31)', `${P}.requests`],
      ['flask', '3.0.0', 'flask[async] (3.0.0)', `${P}.Flask`],
      ['numpy', undefined, 'numpy (^1.26)', `${P}.numpy`],
      ['mylib', undefined, 'mylib @ git+https://github.com/example/mylib.git', `${P}.mylib`],
    ],
  );
  assert.deepEqual(skips(r), [`marker-excluded @ ${P}.pendulum`, `marker-excluded @ ${P}.pywin32`, `invalid-name @ ${P}.bad name`]);
  assert.deepEqual(
    Object.fromEntries(Object.entries(r.other).map(([k, v]) => [k, v.map((d) => d.name)])),
    { 'optional:cache': ['redis'], optional: ['hiredis'], 'group:dev': ['black', 'pytest'] },
  );
  assert.equal(r.other['optional:cache']![0]!.version, '5.0.1');
});

test('Poetry python restrictions follow the target interpreter', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'pyproject-poetry'), {
    markerEnv: { ...DEFAULT_MARKER_ENV, python_version: '3.8', python_full_version: '3.8.18' },
  });
  assert.ok(names(r).includes('pendulum'), 'python = "<3.10" holds on 3.8');
  assert.equal(dep(r, 'numpy').id, 'numpy (<1.25)', 'the first applicable alternative of a multiple-constraint dependency');
});

test('Poetry constraints translate to PEP 440', () => {
  assert.deepEqual(poetryConstraint('^1.2.3'), ['>=1.2.3,<2']);
  assert.deepEqual(poetryConstraint('^0.2.3'), ['>=0.2.3,<0.3']);
  assert.deepEqual(poetryConstraint('^0.0.3'), ['>=0.0.3,<0.0.4']);
  assert.deepEqual(poetryConstraint('~1.2.3'), ['>=1.2.3,<1.3']);
  assert.deepEqual(poetryConstraint('~1'), ['>=1,<2']);
  assert.deepEqual(poetryConstraint('1.2.3'), ['==1.2.3']);
  assert.deepEqual(poetryConstraint('>= 1.2, < 1.5'), ['>=1.2,<1.5']);
  assert.deepEqual(poetryConstraint('>=3.8 <3.12'), ['>=3.8,<3.12']);
  assert.deepEqual(poetryConstraint('^2.7 || ^3.6'), ['>=2.7,<3', '>=3.6,<4']);
  assert.deepEqual(poetryConstraint('*'), ['']);
  assert.equal(poetryConstraint('^banana'), undefined);
});

test('dynamic dependencies read from the file tool.setuptools.dynamic names', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'pyproject-dynamic'));
  assert.deepEqual(
    r.declared.map((d) => [d.name, d.source]),
    [
      ['httpx', 'requirements.in:1'],
      ['rich', 'requirements.in:3'],
    ],
  );
  assert.ok(r.notes.some((n) => n.includes('dynamic') && n.includes('requirements.in')));
});

test('dynamic dependencies from a build backend that cannot be read statically are noted, not guessed', async () => {
  const r = await extractPythonDeclared(await project({ 'pyproject.toml': '[project]\nname = "x"\nversion = "1"\ndynamic = ["dependencies"]\n' }));
  assert.deepEqual(r.declared, []);
  assert.ok(r.notes.some((n) => n.includes('dynamic') && n.includes('not read')));
});

test('a pyproject.toml without dependencies declares nothing, and says so', async () => {
  const r = await extractPythonDeclared(await project({ 'pyproject.toml': '[build-system]\nrequires = ["setuptools"]\n' }));
  assert.deepEqual(r.declared, []);
  assert.deepEqual(r.other, {});
  assert.equal(r.notes.length, 1);
});

test('malformed TOML is an error naming the file with the line and column', async () => {
  await assert.rejects(extractPythonDeclared(path.join(FIXTURES, 'pyproject-malformed')), (err: unknown) => {
    assert.ok(err instanceof EnvproofError);
    // Line 3 is `version = 1.0.0`: a bare 1.0.0 is not a TOML value.
    assert.match(err.message, /^pyproject\.toml is not valid TOML: .* at line 3, column \d+$/);
    assert.ok(err.hint);
    return true;
  });
});

test('[project].dependencies that is not an array is an error', async () => {
  const dir = await project({ 'pyproject.toml': '[project]\nname = "x"\ndependencies = "requests"\n' });
  await assert.rejects(extractPythonDeclared(dir), (err: unknown) => err instanceof EnvproofError && /project\.dependencies must be an array/.test(err.message));
});

test('a non-string dependency entry is skipped', async () => {
  const r = await extractPythonDeclared(await project({ 'pyproject.toml': '[project]\nname = "x"\ndependencies = ["rich", 42]\n' }));
  assert.deepEqual(names(r), ['rich']);
  assert.deepEqual(skips(r), [`unsupported-syntax @ ${S}[1]`]);
});

test('a binary pyproject.toml is refused with an error naming it', async () => {
  const dir = await project({ 'pyproject.toml': Buffer.from([0x5b, 0x00, 0x5d, 0xff]) });
  await assert.rejects(extractPythonDeclared(dir), (err: unknown) => err instanceof EnvproofError && err.message.startsWith('pyproject.toml is not valid utf-8'));
});

test('PEP 735 dependency groups are reported apart, with include-group expanded and cycles reported', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'pyproject-groups'));
  assert.deepEqual(names(r), ['httpx']);
  const groups = Object.fromEntries(Object.entries(r.other).map(([k, v]) => [k, v.map((d) => d.name)]));
  assert.deepEqual(groups, {
    'group:test': ['pytest', 'coverage'],
    'group:lint': ['ruff'],
    'group:dev': ['pytest', 'coverage', 'ruff', 'ipython'],
    'group:loop-a': ['b', 'a'],
    'group:loop-b': ['a', 'b'],
  });
  assert.deepEqual(skips(r), [
    'include-cycle @ pyproject.toml:dependency-groups.loop-b[0]',
    'include-cycle @ pyproject.toml:dependency-groups.loop-a[0]',
    'include-missing @ pyproject.toml:dependency-groups.broken[0]',
    'unsupported-syntax @ pyproject.toml:dependency-groups.broken[1]',
  ]);
});
