// tier: quick
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AnthropicTransport } from '../../src/agents/anthropic.js';
import { ChatAgent } from '../../src/agents/chat.js';
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
    assert.deepEqual(result, { status: 'ok', usage: { inputTokens: 11, outputTokens: 7 } });
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
    await assert.rejects(agent.turn(request(ws)), /refused the API key \(HTTP 401\)/);
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
