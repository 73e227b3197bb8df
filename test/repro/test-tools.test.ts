// tier: quick
/** The test tools a project's install leaves out: Python's detection, the plan, and the missing-tool error (src/repro/test-tools.ts). */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ecosystem } from '../../src/ecosystems/index.js';
import { toxDeps } from '../../src/ecosystems/python/test-dependencies.js';
import { kindOf } from '../../src/repro/kinds.js';
import { missingTool, missingToolError, testToolNote, testToolPlan } from '../../src/repro/test-tools.js';
import { FIXTURES } from './helpers.js';

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'envproof-test-deps-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const detect = (dir: string) => ecosystem('python').repro!.testDependencies!(dir);

describe("Python's test dependencies", () => {
  test('requirements files, extras, dependency groups and tox deps; test-named before dev-named', async () => {
    const dir = project({
      'requirements.txt': 'requests==2.32.3\n',
      'requirements-dev.txt': 'black\n',
      'test-requirements.txt': 'pytest==8.3.3\n',
      'requirements-docs.txt': 'sphinx\n',
      'pyproject.toml': [
        '[project]',
        'name = "p"',
        'version = "1"',
        '[project.optional-dependencies]',
        'test = ["pytest>=8"]',
        'docs = ["sphinx"]',
        '[dependency-groups]',
        'lint = ["ruff==0.6.9"]',
        'dev = [{include-group = "lint"}, "pytest-cov"]',
      ].join('\n'),
      'tox.ini': '[tox]\nenvlist = py311\n\n[testenv]\ndeps =\n    -r requirements-test.txt\n    pytest-mock # mocks\n    {[base]deps}\ncommands = pytest\n',
    });
    assert.deepEqual(await detect(dir), [
      { command: 'pip install -r test-requirements.txt', source: 'test-requirements.txt' },
      { command: "pip install '.[test]'", source: 'pyproject.toml [project.optional-dependencies] test' },
      { command: 'pip install -r requirements-test.txt pytest-mock', source: 'tox.ini [testenv] deps' },
      { command: 'pip install -r requirements-dev.txt', source: 'requirements-dev.txt' },
      { command: 'pip install ruff==0.6.9 pytest-cov', source: 'pyproject.toml [dependency-groups] dev' },
    ]);
  });

  test('a project without any finds none; tox.ini without [testenv] deps gives none', async () => {
    assert.deepEqual(await detect(path.join(FIXTURES, 'py-clean')), []);
    assert.deepEqual(toxDeps('[tox]\nenvlist = py311\n[testenv:lint]\ndeps = ruff\n'), []);
    assert.deepEqual(toxDeps('[testenv]\ndeps = pytest\n  mock\nsetenv =\n  X = 1\n'), ['pytest', 'mock']);
  });
});

describe('the test tools of every run', () => {
  const kind = kindOf(ecosystem('python'));
  const dir = path.join(FIXTURES, 'py-test-deps');

  test('the first detected way is installed and noted, unless --install is given or --no-test-deps', async () => {
    const auto = await testToolPlan(kind, dir, [], true);
    assert.deepEqual([auto.commands, auto.sources], [['pip install -r requirements-test.txt'], ['requirements-test.txt']]);
    assert.match(testToolNote(auto)!, /`pip install -r requirements-test\.txt` \(found: requirements-test\.txt; --no-test-deps leaves it out\)/);
    const given = await testToolPlan(kind, dir, ['pip install pytest==8.3.3'], true);
    assert.deepEqual([given.commands, given.sources], [['pip install pytest==8.3.3'], ['--install']]);
    const off = await testToolPlan(kind, dir, [], false);
    assert.deepEqual([off.commands, testToolNote(off)], [[], undefined]);
    assert.equal(off.detected.length, 1);
  });

  test('a missing test tool is named, with the option and the detected way', async () => {
    assert.equal(missingTool('command not found (/bin/sh: 1: pytest: not found)'), 'pytest');
    assert.equal(missingTool('sh: jest: command not found'), 'jest');
    assert.equal(missingTool('/venv/bin/python: No module named pytest', kind.missingTool), 'pytest');
    assert.equal(missingTool('/venv/bin/python: No module named pytest'), undefined);
    const off = await testToolPlan(kind, dir, [], false);
    const err = missingToolError({ status: 'not-started', exitCode: 127, note: 'command not found (/bin/sh: 1: pytest: not found)' }, 'pytest -q', off)!;
    assert.equal(err.message, 'the test command needs pytest, which the fresh environment does not have: pytest -q');
    assert.equal(err.hint, 'install it with --install "pip install -r requirements-test.txt" (found: requirements-test.txt)');
    const none = missingToolError({ status: 'fail', exitCode: 1, runner: 'pytest', note: 'pytest left no report of its tests (exit 1):\nNo module named pytest' }, 'python -m pytest', { commands: [], sources: [], detected: [] }, kind.missingTool)!;
    assert.equal(none.hint, 'say how the tests\' tools are installed: --install "<the command that installs pytest>" (repeatable)');
    // A run whose tests ran and failed is an outcome, whatever it printed.
    assert.equal(missingToolError({ status: 'fail', exitCode: 1, tests: { t: 'failed' }, note: 'x: not found' }, 'pytest', off), undefined);
  });
});
