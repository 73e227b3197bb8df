// tier: quick
/** whyNotStarted: which outcomes of a traced run mean that the program never ran (so D3 is unknown). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { whyNotStarted } from '../../src/audit/run-start.js';
import type { ExecResult } from '../../src/sandbox/types.js';

const result = (r: Partial<ExecResult>): ExecResult => ({ exitCode: 0, signal: null, timedOut: false, stdout: '', stderr: '', durationMs: 1, ...r });

test('the shell could not find or execute the command: never started, with its words', () => {
  assert.equal(whyNotStarted(result({ exitCode: 127, stderr: 'sh: 1: demo: not found\n' }), ['/usr/bin/sh']), 'command not found (sh: 1: demo: not found)');
  assert.equal(
    whyNotStarted(result({ exitCode: 126, stderr: '/bin/sh: 1: ./main.py: Permission denied\n' }), ['/bin/sh']),
    'command could not be executed (/bin/sh: 1: ./main.py: Permission denied)',
  );
  assert.equal(whyNotStarted(result({ spawnError: "strace: Can't stat 'x': No such file or directory" }), []), "strace: Can't stat 'x': No such file or directory");
  assert.equal(whyNotStarted(result({ exitCode: null, signal: 'SIGKILL' }), ['/bin/sh']), 'killed by SIGKILL before any program started');
});

test('a program that ran and then failed, however, started', () => {
  // The program itself exits 127 (a subprocess of its own was not found): it ran.
  assert.equal(whyNotStarted(result({ exitCode: 127, stderr: 'x: not found' }), ['/bin/sh', '/usr/bin/python3']), undefined);
  assert.equal(whyNotStarted(result({ exitCode: 1 }), ['/bin/sh']), undefined, 'a shell command that failed ran');
  assert.equal(whyNotStarted(result({ exitCode: null, signal: 'SIGKILL', timedOut: true }), ['/bin/sh']), undefined, 'a shell loop stopped at the time limit ran');
  assert.equal(whyNotStarted(result({ exitCode: 0 }), ['/bin/sh']), undefined, 'shell builtins (echo) ran');
});
