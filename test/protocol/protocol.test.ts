import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { closedPort, FIXTURES, readStore, runProtocolCli, tempStore } from './helpers.js';

describe('envproof run with scripted and replay agents (real installs, real tracer)', { concurrency: false }, () => {
  test('a missing dependency is repaired in round 1: D1 from attempt 0, D2 and D3 from attempt 1', async () => {
    const store = tempStore();
    const r = runProtocolCli(store, '--agent', `scripted:${path.join(FIXTURES, 'repair-python.yaml')}`, '--tasks', 'p_01', '--languages', 'python', '--repairs', '3');
    assert.equal(r.status, 0, r.stderr);
    const [entry, ...others] = (await readStore(store));
    assert.equal(others.length, 0);
    const { run, attempts } = entry!;
    assert.equal(run.status, 'done');
    assert.equal(run.firstSuccess, false);
    assert.equal(run.finalSuccess, true);
    assert.equal(run.repairDepth, 1);
    assert.equal(run.initialErrorType, 'MissingDep');
    assert.deepEqual(run.declared, ['six'], 'D1 is the first manifest, before the repair');
    assert.deepEqual(run.installed, ['pyyaml', 'six'], 'D2 is the final manifest');
    assert.deepEqual(run.traced, ['pyyaml', 'six']);
    assert.equal(attempts.length, 2);
    assert.equal(attempts[0]!.success, false);
    assert.equal(attempts[0]!.errorClass, 'missing-dependency');
    assert.match(attempts[0]!.errorTail!, /No module named 'yaml'/);
    assert.equal(attempts[0]!.manifest, 'six==1.16.0\n');
    assert.equal(attempts[0]!.tokensIn, 100);
    assert.equal(attempts[1]!.success, true);
    assert.equal(attempts[1]!.manifest, 'six==1.16.0\nPyYAML==6.0.2\n');
    assert.notEqual(attempts[0]!.treeHash, attempts[1]!.treeHash);
  });

  test('a run that never converges stops after k repairs', async () => {
    const store = tempStore();
    const r = runProtocolCli(store, '--agent', `scripted:${path.join(FIXTURES, 'never-converges.yaml')}`, '--tasks', 'p_01', '--languages', 'python', '--repairs', '2');
    assert.equal(r.status, 1, `no run succeeded: exit 1\n${r.stderr}`);
    const { run, attempts } = (await readStore(store))[0]!;
    assert.equal(run.finalSuccess, false);
    assert.equal(run.repairDepth, null);
    assert.equal(run.initialErrorType, 'CodeBug');
    assert.deepEqual(attempts.map((a) => a.attempt), [0, 1, 2]);
    assert.deepEqual(attempts.map((a) => a.errorClass), ['code-bug', 'code-bug', 'code-bug']);
    assert.match(attempts[2]!.errorTail!, /broken again/);
    assert.match(r.stdout, /0 succeeded, 1 failed/);
  });

  test('files an agent writes outside its workspace are refused and recorded', async () => {
    // The `..` write would have landed beside the workspace, in a directory removed after the run; the absolute one would stay.
    const outside = ['/tmp/envproof-escape-absolute.txt'];
    for (const f of outside) rmSync(f, { force: true });
    const store = tempStore();
    const r = runProtocolCli(store, '--agent', `scripted:${path.join(FIXTURES, 'escape.yaml')}`, '--tasks', 'p_01', '--languages', 'python', '--repairs', '0');
    assert.equal(r.status, 0, r.stderr);
    const { run, attempts } = (await readStore(store))[0]!;
    assert.equal(run.finalSuccess, true, 'the valid part of the project still runs');
    assert.match(attempts[0]!.note!, /refused \.\.\/envproof-escape-test\.txt \(parent-escape\)/);
    assert.match(attempts[0]!.note!, /refused \/tmp\/envproof-escape-absolute\.txt \(absolute-path\)/);
    for (const f of outside) assert.equal(existsSync(f), false, `${f} was not written`);
  });

  test('a replayed JavaScript project that succeeds at once', async () => {
    const store = tempStore();
    const r = runProtocolCli(store, '--agent', `claude@replay:${path.join(FIXTURES, 'replay')}`, '--tasks', 'p_01,p_02', '--languages', 'javascript');
    assert.equal(r.status, 0, r.stderr);
    const entries = (await readStore(store));
    assert.equal(entries.length, 1, 'p_02 has no recording: the agent gave up before generating, nothing stored');
    const { run, attempts } = entries[0]!;
    assert.equal(run.agent, 'claude');
    assert.equal(run.firstSuccess, true);
    assert.deepEqual(run.declared, ['chalk']);
    // chalk@4.1.2 depends on ansi-styles@^4.1.0 and supports-color@^7.1.0; those on color-convert → color-name, has-flag.
    assert.deepEqual(run.installed, ['ansi-styles', 'chalk', 'color-convert', 'color-name', 'has-flag', 'supports-color']);
    assert.equal(attempts.length, 1);
    assert.match(r.stdout, /1 without any attempt/);
  });
});

describe('envproof export', () => {
  test('exports runs with their attempts as JSON', () => {
    const store = tempStore();
    runProtocolCli(store, '--agent', `scripted:${path.join(FIXTURES, 'never-converges.yaml')}`, '--tasks', 'p_02', '--languages', 'python', '--repairs', '1');
    const r = runCli(['export', '--store', store]);
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.schemaVersion, 3);
    assert.equal(doc.runs.length, 1);
    assert.equal(doc.runs[0].taskId, 'p_02');
    assert.deepEqual(doc.runs[0].attempts.map((a: { attempt: number; sandbox: string }) => [a.attempt, a.sandbox]), [[0, 'host'], [1, 'host']], 'each attempt says where it ran');
    assert.ok(doc.tasks.some((t: { source: string; id: string; domain: string }) => t.source === 'envproof' && t.id === 'p_02' && t.domain === 'Data Processing'));
  });

  test('a missing store is a clear error', () => {
    const r = runCli(['export', '--store', '/nonexistent/dir/store.db']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /cannot open the results store/);
  });
});

describe('envproof run on compiled languages (real Maven, real CMake)', { concurrency: false }, () => {
  test('replayed Java and C++ projects succeed at once and carry their layers', async () => {
    const store = tempStore();
    const r = runProtocolCli(store, '--agent', `replay:${path.join(FIXTURES, 'replay')}`, '--tasks', 'p_01', '--languages', 'java,cpp', '--timeout', '180');
    assert.equal(r.status, 0, r.stderr);
    const byLanguage = Object.fromEntries((await readStore(store)).map((e) => [e.run.language, e]));
    const java = byLanguage.java!;
    assert.equal(java.run.firstSuccess, true, JSON.stringify(java.attempts[0]));
    assert.deepEqual(java.run.declared, ['gson']);
    // gson 2.10.1 has no compile or runtime dependencies of its own.
    assert.deepEqual(java.run.installed, ['gson']);
    assert.deepEqual(java.run.traced, ['gson']);
    const cpp = byLanguage.cpp!;
    assert.equal(cpp.run.firstSuccess, true, JSON.stringify(cpp.attempts[0]));
    assert.deepEqual(cpp.run.declared, ['zlib']);
    assert.deepEqual(cpp.run.traced, ['zlib'], 'libz.so.1 is attributed to the CMake package ZLIB');
  });
});

describe('infrastructure failures', () => {
  test("a model API that is down sets the run aside, never counted against the agent", async () => {
    // A port nothing listens on: the agent's API refuses every connection, deterministically.
    const down = await closedPort();
    const store = tempStore();
    const r = runProtocolCli(store, '--agent', `openai:model=m,base=http://127.0.0.1:${down}/v1`, '--tasks', 'p_01', '--languages', 'python', '--retries', '1', '--retry-delay', '0');
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /1 set aside \(infrastructure\)/);
    const [entry] = (await readStore(store));
    assert.equal(entry!.run.status, 'infrastructure-failed');
    assert.equal(entry!.attempts.length, 0, 'no attempt is recorded as the agent failing');
    assert.match(entry!.run.statusReason ?? '', /^the chat-completions endpoint could not be reached: ECONNREFUSED$/, 'the reason is kept');
    const report = runCli(['report', '--store', store, '--format', 'json']);
    assert.equal(report.status, 2);
    assert.match(report.stderr, /holds no finished runs of source envproof \(1 set aside as infrastructure failures\)/, 'the report counts no run, and says why');
  });
});
