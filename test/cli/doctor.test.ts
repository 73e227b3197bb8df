// tier: quick
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';

test('doctor reports the tools present, with their versions', () => {
  const r = runCli(['doctor', '--json']);
  const checks = JSON.parse(r.stdout) as { name: string; ok: boolean; detail: string }[];
  const strace = checks.find((c) => c.name === 'strace')!;
  const version = /version (\S+)/.exec(execFileSync('strace', ['-V'], { encoding: 'utf8' }))![1];
  assert.equal(strace.ok, true);
  assert.equal(strace.detail, version);
  const python = checks.find((c) => c.name === 'python3')!;
  assert.equal(python.detail, execFileSync('python3', ['-c', 'import platform; print(platform.python_version())'], { encoding: 'utf8' }).trim());
});

test('doctor names each missing tool with the command that installs it, and exits 1', () => {
  const r = runCli(['doctor'], { env: { PATH: '/nonexistent' } });
  assert.equal(r.status, 1);
  assert.match(r.stdout, /MISSING\s+strace\s+not found\n\s+fix: apt-get update && apt-get install -y strace/);
  assert.match(r.stdout, /MISSING\s+mvn\s+not found\n\s+fix: .*maven/);
});
