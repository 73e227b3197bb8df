/**
 * Failures where they belong, against a real local HTTP server speaking the chat-completions protocol (the fake
 * model API) and the real envproof CLI: a refused credential stops everything and records nothing; a busy, broken
 * or hung API is retried, honouring Retry-After, and a run it keeps failing is set aside with its reason.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { completion, startFakeLlm, type CannedReply } from '../agents/fake-llm.js';
import { runCli, runCliAsync } from '../helpers/cli.js';
import { readStore, SUITE, tempStore } from './helpers.js';

const PROJECT = ['<file path="requirements.txt">', '', '</file>', '<file path="main.py">', 'print("hello from the project")', '</file>'].join('\n');

/** `envproof run` of the fixture suite's tasks in Python, on the host, against the fake API; progress lines kept. */
async function runAgainst(replies: CannedReply[], tasks: string, extra: string[] = [], env: Record<string, string> = {}) {
  const llm = await startFakeLlm(replies);
  const store = tempStore();
  try {
    const r = await runCliAsync(
      ['run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--tasks', tasks, '--languages', 'python', '--repairs', '0', '--retry-delay', '0',
        '--agent', `openai:model=fake-model,base=${llm.url}/v1,key-env=FAKE_LLM_KEY`, ...extra],
      { env: { FAKE_LLM_KEY: 'sk-test', ...env } },
    );
    return { ...r, store, requests: llm.requests };
  } finally {
    await llm.close();
  }
}

describe('the model API refuses or fails', { concurrency: false }, () => {
  test('HTTP 401 stops the whole run at the first request: exit 2, the server\'s message and a hint, nothing recorded', async () => {
    const refused: CannedReply = { status: 401, json: { error: { message: 'Incorrect API key provided: sk-test', code: 'invalid_api_key' } } };
    const r = await runAgainst([refused, refused, refused], 'p_01,p_02,p_03', ['--retries', '2']);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.requests.length, 1, 'no second request, no retry, no other run');
    assert.match(r.stderr, /envproof: the chat-completions endpoint refused the credentials \(HTTP 401\): Incorrect API key provided: sk-test/);
    assert.match(r.stderr, /hint: check the key in FAKE_LLM_KEY/);
    assert.deepEqual(await readStore(r.store), [], 'no run is recorded as the agent failing');
  });

  test('key-env= naming a variable that is not set is refused before the first request', async () => {
    const r = await runAgainst([{ json: completion(PROJECT, 1, 1) }], 'p_01', [], { FAKE_LLM_KEY: '' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /the environment variable FAKE_LLM_KEY is not set/);
    assert.equal(r.requests.length, 0);
  });

  test('HTTP 429 waits as long as Retry-After says; HTTP 500 beyond the retries sets the run aside with its reason', async () => {
    const r = await runAgainst(
      [
        { status: 429, json: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '2' } },
        { json: completion(PROJECT, 10, 5) },
        { status: 500, text: 'internal error: model crashed' },
        { status: 500, text: 'internal error: model crashed again' },
      ],
      'p_01,p_02',
      ['--retries', '1'],
    );
    assert.equal(r.status, 1, 'a run set aside is exit 1');
    assert.equal(r.requests.length, 4);
    assert.ok(r.requests[1]!.at - r.requests[0]!.at >= 1900, `waited ${r.requests[1]!.at - r.requests[0]!.at} ms, Retry-After said 2 s (--retry-delay 0)`);
    assert.match(r.stderr, /\[0\/2 \d+:\d\d\] openai:fake-model p_01 python #1: retrying in 2 s \(HTTP 429\)/);
    assert.match(r.stderr, /\[1\/2 \d+:\d\d ETA \d+:\d\d\] openai:fake-model p_02 python #1: retrying in 0 s \(HTTP 500\)/, 'the ETA is known once a run has ended');
    assert.match(r.stderr, /p_01 python #1: attempt 0 succeeded/);
    assert.match(r.stdout, /1 succeeded, 0 failed, 0 already done, 1 set aside \(infrastructure\)/);

    const [p01, p02] = await readStore(r.store);
    assert.equal(p01!.run.status, 'done');
    assert.equal(p01!.attempts[0]!.agentOutput, PROJECT, "the model's reply is kept with the attempt");
    assert.equal(p01!.attempts[0]!.programOutput, 'hello from the project\n', 'and what the program printed, though it succeeded');
    assert.equal(p02!.run.status, 'infrastructure-failed');
    assert.equal(p02!.run.statusReason, 'the chat-completions endpoint answered HTTP 500: internal error: model crashed again');
    assert.equal(p02!.attempts.length, 0);

    const exported = JSON.parse(runCli(['export', '--store', r.store]).stdout);
    assert.equal(exported.runs.find((x: { taskId: string }) => x.taskId === 'p_02').statusReason, p02!.run.statusReason);
    assert.equal(exported.runs.find((x: { taskId: string }) => x.taskId === 'p_01').attempts[0].programOutput, 'hello from the project\n');
    const report = runCli(['report', '--store', r.store]);
    assert.equal(report.status, 0, report.stderr);
    assert.match(report.stdout, /\| openai:fake-model \| Python \| p_02 \| 1 \| the chat-completions endpoint answered HTTP 500: internal error: model crashed again \|/);
  });

  test('an HTML 502, an answer that is not JSON and a hung request are retried, then the run is set aside', async () => {
    const started = Date.now();
    const r = await runAgainst(
      [
        { status: 502, text: '<html><body><h1>502 Bad Gateway</h1></body></html>', contentType: 'text/html' },
        { status: 200, text: '<html><body>Sign in to the proxy</body></html>', contentType: 'text/html' },
        { hang: true },
      ],
      'p_01',
      ['--retries', '2', '--request-timeout', '2'],
    );
    assert.equal(r.status, 1, r.stderr);
    assert.ok(Date.now() - started < 60_000, 'the hung request cost its request timeout, not the agent turn\'s 1,800 s');
    assert.match(r.stderr, /retrying in 0 s \(HTTP 502\)/);
    assert.match(r.stderr, /retrying in 0 s \(not JSON\)/);
    const [entry] = await readStore(r.store);
    assert.equal(entry!.run.status, 'infrastructure-failed');
    assert.equal(entry!.run.statusReason, 'the chat-completions endpoint could not be reached: timed out');
    assert.equal(entry!.attempts.length, 0, 'none of it is the agent\'s failure');
  });
});
