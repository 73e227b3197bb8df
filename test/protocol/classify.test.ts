// tier: quick
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
  assert.equal(classifyStepFailure('install', 'registry-unreachable', ''), 'infrastructure', 'only the registry itself is infrastructure');
  assert.equal(classifyStepFailure('install', 'network', ''), 'fetch-failure', 'a failed connection alone is not evidence about the registry');
  assert.equal(classifyStepFailure('install', 'timeout', ''), 'timeout');
  assert.equal(classifyStepFailure('install', 'no-such-package', ''), 'fetch-failure');
  assert.equal(classifyStepFailure('configure', 'missing-system-library', ''), 'missing-system-library');
  assert.equal(classifyStepFailure('install', 'native-build-failure', 'src/x.c:1:10: fatal error: ffi.h: No such file or directory'), 'missing-system-library');
  assert.equal(classifyStepFailure('install', 'native-build-failure', 'gyp ERR! stack Error: not ok'), 'build-configuration');
  assert.equal(classifyStepFailure('build', 'other', '[ERROR] package org.apache.commons.csv does not exist'), 'missing-dependency');
});

test('compiler configuration is build configuration; errors located in the source are code bugs', () => {
  // javac 17 through Maven, gcc 12 and clang, as they word them.
  const configuration = [
    '[ERROR] COMPILATION ERROR : \n[ERROR] Source option 5 is no longer supported. Use 7 or later.\n[ERROR] Target option 5 is no longer supported. Use 7 or later.',
    '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.1:compile (default-compile) on project t: Fatal error compiling: error: invalid target release: 99',
    'error: release version 25 not supported',
    "c++: error: unrecognized command-line option ‘-std=c++29’; did you mean ‘-std=c++20’?\ngmake[2]: *** [CMakeFiles/app.dir/build.make:76: CMakeFiles/app.dir/main.cpp.o] Error 1",
    "error: invalid value 'c++29' in '-std=c++29'",
  ];
  for (const output of configuration) assert.equal(classifyStepFailure('build', 'other', output), 'build-configuration', output);
  const code = [
    "/w/main.cpp:1:21: error: ‘undefined_thing’ was not declared in this scope\ngmake[2]: *** [CMakeFiles/app.dir/build.make:76: CMakeFiles/app.dir/main.cpp.o] Error 1",
    '[ERROR] /w/src/main/java/t/App.java:[1,77] incompatible types: java.lang.String cannot be converted to int',
  ];
  for (const output of code) assert.equal(classifyStepFailure('build', 'build', output), 'code-bug', output);
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
