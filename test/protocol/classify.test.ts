import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCommandFromReadme } from '../../src/audit/readme-run.js';
import { classifyRunFailure, classifyStepFailure } from '../../src/protocol/classify.js';

test('run failures are classed from the program output', () => {
  assert.equal(classifyRunFailure("Traceback...\nModuleNotFoundError: No module named 'yaml'", false), 'missing-dependency');
  assert.equal(classifyRunFailure("Error: Cannot find module 'chalk'\nRequire stack:", false), 'missing-dependency');
  assert.equal(classifyRunFailure("Error: Cannot find module './local'", false), 'code-bug', 'a relative module is the code');
  assert.equal(classifyRunFailure('Exception in thread "main" java.lang.NoClassDefFoundError: com/google/gson/Gson', false), 'missing-dependency');
  assert.equal(classifyRunFailure('./app: error while loading shared libraries: libcurl.so.4: cannot open shared object file', false), 'missing-system-library');
  assert.equal(classifyRunFailure('ZeroDivisionError: division by zero', false), 'code-bug');
  assert.equal(classifyRunFailure('', true), 'timeout');
});

test('step failures are classed from the ecosystem failure class', () => {
  assert.equal(classifyStepFailure('install', 'network', ''), 'infrastructure');
  assert.equal(classifyStepFailure('install', 'no-such-package', ''), 'fetch-failure');
  assert.equal(classifyStepFailure('configure', 'missing-system-library', ''), 'missing-system-library');
  assert.equal(classifyStepFailure('install', 'native-build-failure', 'src/x.c:1:10: fatal error: ffi.h: No such file or directory'), 'missing-system-library');
  assert.equal(classifyStepFailure('install', 'native-build-failure', 'gyp ERR! stack Error: not ok'), 'build-configuration');
  assert.equal(classifyStepFailure('build', 'other', '[ERROR] package org.apache.commons.csv does not exist'), 'missing-dependency');
});

test('the run command of a README', () => {
  const readme = [
    '# Tool',
    '## Setup',
    '```bash',
    'python app.py --wrong-section',
    '```',
    '## How to run',
    '```bash',
    '$ pip install -r requirements.txt',
    'cd tool',
    '$ python -m tool --demo',
    '```',
  ].join('\n');
  assert.equal(runCommandFromReadme(readme), 'python -m tool --demo');
  assert.equal(runCommandFromReadme('# Tool\nNo code here.'), undefined);
  assert.equal(runCommandFromReadme('## Usage\n```\nnpm install\nnode cli.js\n```'), 'node cli.js');
});
