import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AnthropicTransport } from '../../src/agents/anthropic.js';
import { ChatAgent, retryAfterSeconds } from '../../src/agents/chat.js';
import { OpenAiTransport } from '../../src/agents/openai.js';
import type { AgentTurnRequest } from '../../src/agents/types.js';
import { completion, startFakeLlm } from './fake-llm.js';

function request(workspace: string, round = 0): AgentTurnRequest {
  return { taskId: 'p_01', language: 'python', trial: 1, round, prompt: 'TASK: x', taskPrompt: 'TASK: x', workspace, timeoutMs: 10_000 };
}

const workspace = () => {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-agent-')), 'workspace');
  mkdirSync(dir);
  return dir;
};

test('the anthropic adapter speaks the Messages API and writes the files of the reply', async () => {
  const reply = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: '<file path="src/app.py">\nprint(1)\n</file>' }], usage: { input_tokens: 11, output_tokens: 7 } };
  const llm = await startFakeLlm([{ json: reply }]);
  try {
    const agent = new ChatAgent('anthropic:m', new AnthropicTransport({ baseUrl: llm.url, model: 'm', apiKey: 'k-1', maxTokens: 1000 }));
    const ws = workspace();
    const result = await agent.turn(request(ws));
    assert.deepEqual(result, { status: 'ok', usage: { inputTokens: 11, outputTokens: 7 }, transcript: { output: '<file path="src/app.py">\nprint(1)\n</file>' } });
    const sent = llm.requests[0]!;
    assert.equal(sent.url, '/v1/messages');
    assert.equal(sent.headers['x-api-key'], 'k-1');
    assert.equal(sent.headers['anthropic-version'], '2023-06-01');
    assert.equal(sent.body.max_tokens, 1000);
    assert.match(sent.body.system, /<file path=/);
    assert.deepEqual(sent.body.messages, [{ role: 'user', content: 'TASK: x' }]);
    assert.equal(readFileSync(path.join(ws, 'src/app.py'), 'utf8'), 'print(1)\n');
  } finally {
    await llm.close();
  }
});

test('server errors are infrastructure (retryable), a refused key stops with a clear error, escapes are refused', async () => {
  const escape = '<file path="../outside.txt">\nx\n</file>\n<file path="ok.txt">\nfine\n</file>';
  const llm = await startFakeLlm([{ status: 503, text: 'overloaded' }, { status: 401, text: 'bad key' }, { json: completion(escape, 1, 1) }]);
  try {
    const agent = new ChatAgent('openai:m', new OpenAiTransport({ baseUrl: llm.url, model: 'm' }));
    const ws = workspace();
    const unavailable = await agent.turn(request(ws));
    assert.equal(unavailable.status, 'unavailable');
    await assert.rejects(agent.turn(request(ws)), /refused the credentials \(HTTP 401\): bad key/);
    const escaped = await agent.turn(request(ws));
    assert.equal(escaped.status, 'ok');
    assert.match((escaped as { note?: string }).note ?? '', /refused \.\.\/outside\.txt \(parent-escape\)/);
    assert.equal(existsSync(path.join(ws, '..', 'outside.txt')), false);
    assert.equal(readFileSync(path.join(ws, 'ok.txt'), 'utf8'), 'fine\n');
  } finally {
    await llm.close();
  }
});

test('an endpoint that cannot be reached is reported as unavailable, not as the agent failing', async () => {
  const closed = await startFakeLlm([]);
  await closed.close(); // nothing listens on its port any more
  const agent = new ChatAgent('openai:m', new OpenAiTransport({ baseUrl: closed.url, model: 'm' }));
  const result = await agent.turn(request(workspace()));
  assert.equal(result.status, 'unavailable');
  assert.match((result as { reason: string }).reason, /could not be reached: ECONNREFUSED/);
});

test('what an endpoint answers decides whose failure it is: busy, broken, hung or not JSON is retried; a refused key or unknown model stops', async () => {
  const llm = await startFakeLlm([
    { status: 429, json: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '7' } },
    { status: 502, text: '<html><body><h1>502 Bad Gateway</h1></body></html>', contentType: 'text/html' },
    { status: 200, text: '<html><body>Sign in to the proxy</body></html>', contentType: 'text/html' },
    { hang: true },
    { status: 401, json: { error: { message: 'Incorrect API key provided: sk-bad', code: 'invalid_api_key' } } },
    { status: 404, json: { error: { message: 'The model `gpt-9` does not exist' } } },
  ]);
  try {
    const agent = new ChatAgent('openai:m', new OpenAiTransport({ baseUrl: llm.url, model: 'm', apiKey: 'sk-bad', keyEnv: 'MY_KEY' }));
    const ws = workspace();
    assert.deepEqual(await agent.turn(request(ws)), { status: 'unavailable', reason: 'the chat-completions endpoint answered HTTP 429: Rate limit reached', cause: 'HTTP 429', retryAfterSec: 7 });
    assert.deepEqual(await agent.turn(request(ws)), { status: 'unavailable', reason: 'the chat-completions endpoint answered HTTP 502: 502 Bad Gateway', cause: 'HTTP 502' });
    const notJson = await agent.turn(request(ws));
    assert.equal(notJson.status, 'unavailable');
    assert.match((notJson as { reason: string }).reason, /HTTP 200 with something that is not JSON \(text\/html\): Sign in to the proxy/);
    const started = Date.now();
    const hung = await agent.turn({ ...request(ws), requestTimeoutMs: 400 });
    assert.deepEqual(hung, { status: 'unavailable', reason: 'the chat-completions endpoint could not be reached: timed out', cause: 'timed out' });
    assert.ok(Date.now() - started < 5000, 'the request timeout, not the turn timeout (10 s), ended it');
    await assert.rejects(agent.turn(request(ws)), (err: Error) => {
      assert.equal(err.name, 'AgentMisconfigured');
      assert.equal(err.message, 'the chat-completions endpoint refused the credentials (HTTP 401): Incorrect API key provided: sk-bad');
      assert.match((err as { hint?: string }).hint ?? '', /check the key in MY_KEY/);
      return true;
    });
    await assert.rejects(agent.turn(request(ws)), /answered HTTP 404 for http:\/\/127\.0\.0\.1:\d+\/chat\/completions: The model `gpt-9` does not exist/);
  } finally {
    await llm.close();
  }
});

test('Retry-After as seconds or as an HTTP date', () => {
  assert.equal(retryAfterSeconds('12'), 12);
  assert.equal(retryAfterSeconds('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')), 30);
  assert.equal(retryAfterSeconds('soon'), undefined);
  assert.equal(retryAfterSeconds(null), undefined);
});
