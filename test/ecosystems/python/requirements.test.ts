// tier: quick
import assert from 'node:assert/strict';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { EnvproofError } from '../../../src/core/errors.js';
import { extractPythonDeclared } from '../../../src/ecosystems/python/declared.js';
import { DEFAULT_MARKER_ENV } from '../../../src/ecosystems/python/markers.js';
import { dep, FIXTURES, names, project, removeProjects, skips } from './helpers.js';

after(removeProjects);

const requirements = async (text: string) => extractPythonDeclared(await project({ 'requirements.txt': text }));

test('a pandas requirements file gives D1 = {pandas}', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'pandas'));
  assert.equal(r.manifest, 'requirements.txt');
  assert.deepEqual(names(r), ['pandas']);
  assert.deepEqual(r.declared[0], { name: 'pandas', source: 'requirements.txt:1' });
  assert.deepEqual(r.skipped, []);
  assert.deepEqual(r.other, {});
});

test('# starts a comment only at line start or after whitespace, so URL fragments survive', async () => {
  const r = await requirements(['# a comment line', '  # an indented one', 'requests  # trailing comment', 'pkg @ https://x.example/y.zip#egg=pkg', 'flask\t# after a tab'].join('\n'));
  assert.deepEqual(names(r), ['requests', 'pkg', 'flask']);
  assert.equal(dep(r, 'pkg').id, 'pkg @ https://x.example/y.zip#egg=pkg');
  assert.deepEqual(r.skipped, []);
});

test('backslash continuations join lines; the entry keeps its first line number', async () => {
  const r = await requirements(['requests \\', '  >=2.0 \\', '  ,<3', 'six'].join('\n'));
  assert.deepEqual(names(r), ['requests', 'six']);
  assert.equal(dep(r, 'requests').id, 'requests>=2.0,<3');
  assert.equal(dep(r, 'requests').source, 'requirements.txt:1');
  assert.equal(dep(r, 'six').source, 'requirements.txt:4');
});

test("line breaks are Python's (CRLF, CR, form feed); all backslashes end a continued line", async () => {
  const r = await requirements('six\r\nattrs\rrich\fclick \\\\\n>=8\n');
  assert.deepEqual(
    r.declared.map((d) => [d.name, d.id, d.source]),
    [
      ['six', undefined, 'requirements.txt:1'],
      ['attrs', undefined, 'requirements.txt:2'],
      ['rich', undefined, 'requirements.txt:3'],
      ['click', 'click>=8', 'requirements.txt:4'],
    ],
  );
});

test('pip-compile output: --hash options and a comment line ending a continuation', async () => {
  const text = [
    'numpy==1.26.4 \\',
    '    --hash=sha256:aaaa \\',
    '    --hash=sha256:bbbb \\',
    '    # via pandas',
    'pandas==2.2.2 \\',
    '    --hash=sha256:cccc',
    '    # via -r requirements.in',
  ].join('\n');
  const r = await requirements(text);
  assert.deepEqual(
    r.declared.map((d) => [d.name, d.version, d.source]),
    [
      ['numpy', '1.26.4', 'requirements.txt:1'],
      ['pandas', '2.2.2', 'requirements.txt:5'],
    ],
  );
  assert.deepEqual(r.skipped, [], 'the "-r" inside the comment is not an include');
});

test('-r includes: relative to the including file, in every spelling; a missing one is skipped', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'include-subdir'));
  assert.deepEqual(names(r), ['numpy', 'six', 'scipy', 'pytest', 'requests']);
  assert.equal(dep(r, 'six').source, 'reqs/common/shared.txt:1');
  assert.equal(dep(r, 'numpy').version, '1.26.4');
  assert.deepEqual(skips(r), ['include-missing @ requirements.txt:4']);
  assert.equal(r.skipped[0]!.raw, '-r reqs/missing.txt');
});

test('an include cycle is reported, not followed forever and not thrown', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'include-cycle'));
  assert.deepEqual(names(r), ['requests', 'flask', 'click']);
  assert.deepEqual(skips(r), ['include-cycle @ sub/b.txt:2']);
  assert.equal(r.skipped[0]!.detail, 'a.txt -> sub/b.txt -> a.txt');
});

test('a file that includes itself is a cycle too', async () => {
  const r = await requirements('attrs\n-r requirements.txt\n');
  assert.deepEqual(names(r), ['attrs']);
  assert.deepEqual(skips(r), ['include-cycle @ requirements.txt:2']);
});

test('a file included twice from different places is read once', async () => {
  const dir = await project({ 'requirements.txt': '-r a.txt\n-r b.txt\n', 'a.txt': '-r common.txt\n', 'b.txt': '-r common.txt\nrich\n', 'common.txt': 'click\n' });
  const r = await extractPythonDeclared(dir);
  assert.deepEqual(names(r), ['click', 'rich']);
  assert.deepEqual(r.skipped, []);
  assert.ok(r.notes.some((n) => n.startsWith('b.txt:1: common.txt was already read')), r.notes.join('\n'));
});

test('-c constraint files are not declarations; their entries are reported as constraints', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'constraints'));
  assert.deepEqual(names(r), ['requests']);
  assert.equal(dep(r, 'requests').version, undefined, 'the constraint pin does not become the declared version');
  assert.deepEqual(
    r.other['constraints']!.map((d) => [d.name, d.version, d.id, d.source]),
    [
      ['requests', '2.31.0', 'requests==2.31.0', 'constraints.txt:1'],
      ['urllib3', undefined, 'urllib3<2', 'constraints.txt:2'],
    ],
  );
  assert.deepEqual(skips(r), ['marker-excluded @ constraints.txt:3']);
});

test('-e and local paths: names from #egg=, a wheel file name, pyproject.toml or setup.cfg, else skipped', async () => {
  const r = await extractPythonDeclared(path.join(FIXTURES, 'local-paths'));
  assert.deepEqual(
    r.declared.map((d) => [d.name, d.source]),
    [
      ['pkg-a', 'requirements.txt:1'],
      ['pkg-b', 'requirements.txt:2'],
      ['foo-bar', 'requirements.txt:6'],
      ['pkgc', 'requirements.txt:8'],
    ],
  );
  assert.equal(dep(r, 'foo-bar').version, '1.0');
  assert.equal(dep(r, 'pkg-a').id, 'pkg-a @ ./pkg_a');
  assert.deepEqual(skips(r), ['local-path @ requirements.txt:3', 'local-path @ requirements.txt:4', 'local-path @ requirements.txt:7', 'local-path @ requirements.txt:9']);
  assert.deepEqual(
    r.skipped.map((s) => s.raw),
    ['-e pkg_c', '-e .', './vendor/thing-2.0.tar.gz', './missing_dir'],
  );
  assert.ok(r.notes.some((n) => n.startsWith('requirements.txt:5: pkg-b is declared again')), 'file:./pkg_b names pkg-b again');
});

test('URL and VCS lines: named by #egg=, a wheel name or `name @`, else kept as unnamed', async () => {
  const r = await requirements(
    [
      'git+https://github.com/psf/requests.git@v2.31.0#egg=requests',
      'git+https://github.com/pallets/flask.git',
      'https://files.example.com/pkgs/attrs-23.1.0-py3-none-any.whl',
      'https://files.example.com/pkgs/something-1.0.tar.gz',
      'urllib3 @ https://github.com/urllib3/urllib3/archive/refs/tags/1.26.8.zip',
      '-e git+https://github.com/org/tool.git#egg=Tool_X&subdirectory=src',
      '-e hg+https://hg.example.com/repo',
      'certifi @ git+https://github.com/certifi/python-certifi.git ; python_version >= "3.7"',
      'https://example.com/win_only-1.0-py3-none-any.whl ; sys_platform == "win32"',
      'git+https://user:s3cret@git.example.com/private.git',
    ].join('\n'),
  );
  assert.deepEqual(names(r), ['requests', 'attrs', 'urllib3', 'tool-x', 'certifi']);
  assert.equal(dep(r, 'attrs').version, '23.1.0');
  assert.equal(dep(r, 'certifi').id, 'certifi @ git+https://github.com/certifi/python-certifi.git');
  assert.deepEqual(skips(r), [
    'unnamed-vcs @ requirements.txt:2',
    'unnamed-url @ requirements.txt:4',
    'unnamed-vcs @ requirements.txt:7',
    'marker-excluded @ requirements.txt:9',
    'unnamed-vcs @ requirements.txt:10',
  ]);
  assert.equal(r.skipped[0]!.raw, 'git+https://github.com/pallets/flask.git');
  assert.equal(r.skipped[4]!.raw, 'git+https://***@git.example.com/private.git', 'credentials are not kept');
});

test("as in pip, a requirement line is cut at its first ';', so `name @ url;marker` needs no space", async () => {
  const r = await requirements('pkg @ https://example.com/pkg-1.0.tar.gz;python_version >= "3.8"\nwin @ https://example.com/win.zip;sys_platform == "win32"\n');
  assert.deepEqual(names(r), ['pkg']);
  assert.equal(dep(r, 'pkg').id, 'pkg @ https://example.com/pkg-1.0.tar.gz');
  assert.deepEqual(skips(r), ['marker-excluded @ requirements.txt:2']);
  assert.equal(r.skipped[0]!.raw, 'win @ https://example.com/win.zip;sys_platform == "win32"', 'raw is the line as written');
});

test('extras: the name is without them, the id keeps them (normalised, sorted)', async () => {
  const r = await requirements('requests[socks,Security]>=2\nuvicorn [standard]\n');
  assert.deepEqual(names(r), ['requests', 'uvicorn']);
  assert.equal(dep(r, 'requests').id, 'requests[security,socks]>=2');
  assert.equal(dep(r, 'uvicorn').id, 'uvicorn[standard]');
});

test('version: recorded for == and === pins; other specifiers stay in the id', async () => {
  const r = await requirements(['Django==4.2.7', 'flask>=2,<3', 'six===1.16.0', 'numpy==1.*', 'requests (>=2.0)', 'pkg ~= 1.4.2', 'plain'].join('\n'));
  assert.deepEqual(
    r.declared.map((d) => [d.name, d.version, d.id]),
    [
      ['django', '4.2.7', 'django==4.2.7'],
      ['flask', undefined, 'flask>=2,<3'],
      ['six', '1.16.0', 'six===1.16.0'],
      ['numpy', undefined, 'numpy==1.*'],
      ['requests', undefined, 'requests>=2.0'],
      ['pkg', undefined, 'pkg~=1.4.2'],
      ['plain', undefined, undefined],
    ],
  );
});

test('markers are evaluated for the target interpreter', async () => {
  const text = [
    'tomli; python_version < "3.11"',
    'exceptiongroup ; python_full_version < "3.11.0"',
    'pywin32 ; sys_platform == "win32"',
    'uvloop ; platform_system != "Windows" and implementation_name == "cpython"',
    'typing-extensions ; python_version >= "3.8" or os_name == "nt"',
    'gunicorn; sys_platform in "linux darwin"',
  ].join('\n');
  const dir = await project({ 'requirements.txt': text });
  const linux311 = await extractPythonDeclared(dir);
  assert.deepEqual(names(linux311), ['uvloop', 'typing-extensions', 'gunicorn']);
  assert.deepEqual(skips(linux311), ['marker-excluded @ requirements.txt:1', 'marker-excluded @ requirements.txt:2', 'marker-excluded @ requirements.txt:3']);
  assert.equal(linux311.skipped[0]!.detail, 'python_version < "3.11"');

  const windows39 = await extractPythonDeclared(dir, {
    markerEnv: { ...DEFAULT_MARKER_ENV, os_name: 'nt', sys_platform: 'win32', platform_system: 'Windows', python_version: '3.9', python_full_version: '3.9.13' },
  });
  assert.deepEqual(names(windows39), ['tomli', 'exceptiongroup', 'pywin32', 'typing-extensions']);
});

test('a marker that cannot be evaluated is skipped as unsupported syntax', async () => {
  const r = await requirements('requests ; python_version <\nflask ; bogus_var == "1"\n');
  assert.deepEqual(names(r), []);
  assert.deepEqual(skips(r), ['unsupported-syntax @ requirements.txt:1', 'unsupported-syntax @ requirements.txt:2']);
});

test('global pip options are recorded in notes and ignored; credentials are hidden', async () => {
  const r = await requirements(
    [
      '--index-url https://user:tok3n@pypi.example.com/simple',
      '-i https://pypi.org/simple',
      '--extra-index-url=https://extra.example.com/simple',
      '--find-links ./wheels',
      '-f https://download.example.com/links',
      '--pre',
      '--prefer-binary',
      '--no-binary :all:',
      '--only-binary=numpy',
      '--trusted-host pypi.example.com',
      '--use-feature=truststore',
      'requests',
      '--frobnicate',
    ].join('\n'),
  );
  assert.deepEqual(names(r), ['requests']);
  assert.equal(r.notes.length, 11);
  assert.equal(r.notes[0], 'requirements.txt:1: pip option --index-url https://***@pypi.example.com/simple ignored');
  assert.equal(r.notes[5], 'requirements.txt:6: pip option --pre ignored');
  assert.ok(!r.notes.join('\n').includes('tok3n'));
  assert.deepEqual(skips(r), ['unsupported-syntax @ requirements.txt:13'], 'an unknown option is kept as a skipped entry');
});

test('names are PEP 503-normalised; invalid names are skipped', async () => {
  const r = await requirements(['Django_REST.framework', 'zope.interface>=5', '_private', 'foo$bar', '@ https://example.com/x.zip', 'Foo-'].join('\n'));
  assert.deepEqual(names(r), ['django-rest-framework', 'zope-interface']);
  assert.deepEqual(skips(r), ['invalid-name @ requirements.txt:3', 'invalid-name @ requirements.txt:4', 'invalid-name @ requirements.txt:5', 'invalid-name @ requirements.txt:6']);
});

test('a specifier that is not PEP 440 is skipped as unsupported syntax', async () => {
  const r = await requirements('requests>=\nflask>=2.x\n');
  assert.deepEqual(skips(r), ['unsupported-syntax @ requirements.txt:1', 'unsupported-syntax @ requirements.txt:2']);
});

test('a name declared twice counts once, at its first declaration', async () => {
  const r = await requirements('requests\nnumpy\nRequests>=2\nrequests==2.31.0\n');
  assert.deepEqual(names(r), ['requests', 'numpy']);
  assert.equal(dep(r, 'requests').source, 'requirements.txt:1');
  assert.equal(r.notes.filter((n) => n.includes('requests is declared again (first at requirements.txt:1)')).length, 2);
});

test('binary manifests are refused with an error naming the file', async () => {
  for (const [fixture, pattern] of [
    ['binary-nul', /requirements\.txt looks like a binary file/],
    ['binary-invalid-utf8', /requirements\.txt is not valid utf-8 text/],
  ] as const) {
    await assert.rejects(extractPythonDeclared(path.join(FIXTURES, fixture)), (err: unknown) => err instanceof EnvproofError && pattern.test(err.message) && err.hint !== undefined);
  }
});

test('an unreadable manifest (a directory, a dangling symlink) is an error naming it', async () => {
  const asDirectory = await project({ 'requirements.txt/keep': '' });
  await assert.rejects(extractPythonDeclared(asDirectory), (err: unknown) => err instanceof EnvproofError && err.message.startsWith('cannot read requirements.txt:'));
  const dangling = await project({});
  await symlink(path.join(dangling, 'nowhere.txt'), path.join(dangling, 'requirements.txt'));
  await assert.rejects(extractPythonDeclared(dangling), (err: unknown) => err instanceof EnvproofError && err.message.startsWith('cannot read requirements.txt:'));
});

test('a binary include is refused with an error naming the included file', async () => {
  const dir = await project({ 'requirements.txt': 'requests\n-r sub/bad.txt\n', 'sub/bad.txt': Buffer.from([0x72, 0x00, 0x65]) });
  await assert.rejects(extractPythonDeclared(dir), (err: unknown) => err instanceof EnvproofError && err.message.startsWith('sub/bad.txt looks like a binary file'));
});

test('UTF-16 with a byte-order mark (pip freeze on Windows) and PEP 263 encodings are read', async () => {
  const utf16 = await extractPythonDeclared(path.join(FIXTURES, 'utf16-bom'));
  assert.deepEqual(utf16.declared, [{ name: 'requests', version: '2.31.0', id: 'requests==2.31.0', source: 'requirements.txt:1' }]);
  const latin1 = await extractPythonDeclared(await project({ 'requirements.txt': Buffer.concat([Buffer.from('# -*- coding: latin-1 -*-\n# caf'), Buffer.from([0xe9]), Buffer.from('\nrequests\n')]) }));
  assert.deepEqual(names(latin1), ['requests']);
});

test('a manifest symlinked from outside the project, and an absolute include outside it, are refused (envproof reads as root)', async () => {
  const outside = await project({ 'shared-reqs.txt': 'requests\n', 'abs.txt': 'rich\n' });
  const dir = await project({});
  await symlink(path.join(outside, 'shared-reqs.txt'), path.join(dir, 'requirements.txt'));
  await assert.rejects(extractPythonDeclared(dir), /^OutsideProjectError: requirements\.txt is a symbolic link out of the project/);

  const dir2 = await project({ 'requirements.txt': `flask\n-r ${path.join(outside, 'abs.txt')}\n` });
  await assert.rejects(extractPythonDeclared(dir2), (err: unknown) => err instanceof EnvproofError && err.message.includes('abs.txt is outside the project'));
});

test('includes are followed at most 50 deep', async () => {
  const files: Record<string, string> = { 'requirements.txt': 'p0\n-r f1.txt\n' };
  for (let i = 1; i <= 60; i++) files[`f${i}.txt`] = `p${i}\n-r f${i + 1}.txt\n`;
  const r = await extractPythonDeclared(await project(files));
  // requirements.txt plus f1 … f50: 50 nested includes followed.
  assert.deepEqual(names(r), Array.from({ length: 51 }, (_, i) => `p${i}`));
  assert.deepEqual(skips(r), ['unsupported-syntax @ f50.txt:2']);
});

test('a remote include is not fetched', async () => {
  const r = await requirements('-r https://example.com/requirements.txt\nrequests\n');
  assert.deepEqual(names(r), ['requests']);
  assert.deepEqual(skips(r), ['unsupported-syntax @ requirements.txt:1']);
});

test('requirements.txt wins over pyproject.toml', async () => {
  const r = await extractPythonDeclared(await project({ 'requirements.txt': 'requests\n', 'pyproject.toml': '[project]\nname = "x"\ndependencies = ["flask"]\n' }));
  assert.equal(r.manifest, 'requirements.txt');
  assert.deepEqual(names(r), ['requests']);
  assert.ok(r.notes.some((n) => n.includes('pyproject.toml is also present')));
});

test('no manifest is a clear error with a hint', async () => {
  const dir = await project({ 'main.py': 'print(1)\n' });
  await assert.rejects(extractPythonDeclared(dir), (err: unknown) => {
    assert.ok(err instanceof EnvproofError);
    assert.equal(err.message, `no Python manifest (requirements.txt or pyproject.toml) in ${dir}`);
    assert.ok(err.hint);
    assert.ok(!err.hint.includes('setup.py'));
    return true;
  });
  const legacy = await project({ 'setup.py': 'from setuptools import setup\nsetup(install_requires=["requests"])\n' });
  await assert.rejects(extractPythonDeclared(legacy), (err: unknown) => err instanceof EnvproofError && err.hint!.endsWith('(setup.py is not read)'));
});

test('an empty requirements file declares nothing', async () => {
  const r = await requirements('\n# nothing yet\n\n');
  assert.deepEqual(r.declared, []);
  assert.deepEqual(r.skipped, []);
});
