// tier: quick
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { DEFAULT_MARKER_ENV, evaluateMarker, MARKER_ENV_SCRIPT, markerEnvironmentFromJson, parseMarker, type MarkerEnvironment } from '../../../src/ecosystems/python/markers.js';

function holds(marker: string, env: MarkerEnvironment = DEFAULT_MARKER_ENV): boolean {
  const r = evaluateMarker(marker, env);
  assert.ok(r.ok, `${marker}: ${r.ok ? '' : r.error}`);
  return r.value;
}

const windows: MarkerEnvironment = {
  ...DEFAULT_MARKER_ENV,
  os_name: 'nt',
  sys_platform: 'win32',
  platform_system: 'Windows',
  platform_machine: 'AMD64',
  python_version: '3.9',
  python_full_version: '3.9.13',
  implementation_version: '3.9.13',
};

test('default environment is CPython 3.11 on x86-64 Linux', () => {
  assert.equal(holds('python_version == "3.11"'), true);
  assert.equal(holds('sys_platform == "linux" and os_name == "posix"'), true);
  assert.equal(holds('platform_system == "Linux" and platform_machine == "x86_64"'), true);
  assert.equal(holds('implementation_name == "cpython" and platform_python_implementation == "CPython"'), true);
  assert.equal(holds('extra == ""'), true);
});

test('version fields compare as PEP 440 versions, not strings', () => {
  // As strings "3.11" < "3.9"; as versions it is greater.
  assert.equal(holds('python_version > "3.9"'), true);
  assert.equal(holds('python_version < "3.10"'), false);
  assert.equal(holds('python_full_version >= "3.11.1"'), true);
  assert.equal(holds('python_full_version < "3.11.1"'), false);
  assert.equal(holds('python_version ~= "3.8"'), true);
  assert.equal(holds('python_version == "3.*"'), true);
  assert.equal(holds('"3.8" <= python_version'), true, 'the variable may be on the right');
});

test('other fields compare as strings; in / not in test containment', () => {
  assert.equal(holds('sys_platform != "win32"'), true);
  assert.equal(holds("sys_platform in 'linux darwin'"), true);
  assert.equal(holds("sys_platform not in 'win32 cygwin'"), true);
  assert.equal(holds("'x86' in platform_machine"), true);
  assert.equal(holds("platform_machine not in 'x86_64 aarch64'"), false);
});

test('and binds tighter than or; parentheses regroup', () => {
  // true or (false and false) = true;  (true or false) and false = false
  assert.equal(holds('os_name == "posix" or sys_platform == "win32" and python_version < "3"'), true);
  assert.equal(holds('(os_name == "posix" or sys_platform == "win32") and python_version < "3"'), false);
  assert.equal(holds('(python_version>="3.6"and(sys_platform=="linux"))'), true, 'whitespace is optional');
});

test('the target environment decides', () => {
  const m = 'sys_platform == "win32" and python_version < "3.10"';
  assert.equal(holds(m), false);
  assert.equal(holds(m, windows), true);
  assert.equal(holds('platform_system == "Windows"', windows), true);
});

test('extra names compare normalised (PEP 685)', () => {
  assert.equal(holds('extra == "Dev_Tools"', { ...DEFAULT_MARKER_ENV, extra: 'dev-tools' }), true);
  assert.equal(holds('extra == "docs"', { ...DEFAULT_MARKER_ENV, extra: 'dev-tools' }), false);
});

test('legacy variable spellings are accepted', () => {
  assert.equal(holds('sys.platform == "linux" and os.name == "posix"'), true);
});

test('malformed markers are errors, never guesses', () => {
  for (const bad of ['python_version', 'python_version <', 'python_version < "3" and', 'foo == "1"', '(os_name == "posix"', 'os_name == "posix")', 'os_name = "posix"', '', 'sys_platform ~= "linux"']) {
    const r = evaluateMarker(bad, DEFAULT_MARKER_ENV);
    assert.equal(r.ok, false, `'${bad}' should be rejected`);
  }
  assert.equal(parseMarker('os_name == "posix"').ok, true);
});

test('MARKER_ENV_SCRIPT reports the real interpreter in the shape markerEnvironmentFromJson reads', () => {
  const r = spawnSync('python3', ['-c', MARKER_ENV_SCRIPT], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  assert.equal(r.status, 0, r.stderr);
  const env = markerEnvironmentFromJson(r.stdout);
  assert.ok(env);
  const version = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).stdout.trim();
  assert.equal(env.python_version, version);
  assert.equal(env.sys_platform, 'linux');
  assert.equal(markerEnvironmentFromJson('{"os_name": "posix"}'), undefined, 'incomplete environments are refused');
  assert.equal(markerEnvironmentFromJson('not json'), undefined);
});
