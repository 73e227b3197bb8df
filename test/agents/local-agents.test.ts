import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ChatAgent, type ChatTransport } from '../../src/agents/chat.js';
import { CmdAgent, fillTemplate } from '../../src/agents/cmd.js';
import { ReplayAgent } from '../../src/agents/replay.js';
import { refusedCredentialLine } from '../../src/agents/misconfigured.js';
import { agentFromSpec } from '../../src/agents/spec.js';
import type { AgentTurnRequest } from '../../src/agents/types.js';

function workspace(): string {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-agent-')), 'workspace');
  mkdirSync(dir);
  return dir;
}

const request = (ws: string, round = 0, prompt = 'TASK: demo'): AgentTurnRequest => ({
  taskId: 'p_07', language: 'python', trial: 1, round, prompt, taskPrompt: 'TASK: demo', workspace: ws, timeoutMs: 10_000,
});

test('cmd templates substitute shell-quoted placeholders', () => {
  assert.equal(fillTemplate('agent --in {prompt_file} --round {round}', { prompt_file: "/tmp/a b'c.md", round: '2' }), "agent --in '/tmp/a b'\\''c.md' --round '2'");
});

test('a command-line agent edits the workspace in place; the prompt file stays outside the project', async () => {
  const ws = workspace();
  const agent = new CmdAgent('fake', { first: 'cp {prompt_file} seen-prompt.txt && echo "print(1)" > main.py', next: 'echo round {round} >> rounds.txt' });
  assert.deepEqual(await agent.turn(request(ws)), { status: 'ok', usage: undefined, transcript: { output: '', stderr: '' } });
  assert.equal(readFileSync(path.join(ws, 'seen-prompt.txt'), 'utf8'), 'TASK: demo');
  assert.equal(readFileSync(path.join(ws, 'main.py'), 'utf8'), 'print(1)\n');
  await agent.turn(request(ws, 1, 'fix it'));
  assert.equal(readFileSync(path.join(ws, 'rounds.txt'), 'utf8'), "round 1\n", 'round 1 uses the continuation template');
  assert.equal(existsSync(path.join(ws, 'prompt-round-0.md')), false);
});

test('a command-line agent that fails, hangs or is missing is the agent failing', async () => {
  const ws = workspace();
  const failing = await new CmdAgent('x', { first: 'echo working; echo oops >&2; exit 4' }).turn(request(ws));
  assert.deepEqual(failing, { status: 'failed', reason: 'the agent exited with 4: oops', usage: undefined, transcript: { output: 'working\n', stderr: 'oops\n' } });
  const hanging = await new CmdAgent('x', { first: 'sleep 30' }).turn({ ...request(ws), timeoutMs: 500 });
  assert.equal(hanging.status, 'failed');
  assert.match((hanging as { reason: string }).reason, /did not finish within 1 s/);
  const missing = await new CmdAgent('x', { first: 'no-such-agent-binary-xyz' }).turn(request(ws));
  assert.match((missing as { reason: string }).reason, /not found/);
});

test('a command-line agent without credentials stops the run; one that only talks about keys, or succeeds, does not', async () => {
  const ws = workspace();
  await assert.rejects(new CmdAgent('claude', { first: 'echo "Invalid API key · Please run /login" >&2; exit 1' }).turn(request(ws)), (err: Error) => {
    assert.equal(err.name, 'AgentMisconfigured');
    assert.equal(err.message, 'the agent claude has no usable credentials: Invalid API key · Please run /login');
    return true;
  });
  await assert.rejects(new CmdAgent('codex', { first: 'echo "Error: Not logged in"; exit 2' }).turn(request(ws)), /no usable credentials: Error: Not logged in/);
  // A crash whose output mentions keys long before its end, and a success that mentions them, are the agent's business.
  const crash = await new CmdAgent('x', { first: `echo "reading the API key is not set yet"; for i in $(seq 30); do echo line $i; done; exit 3` }).turn(request(ws));
  assert.equal(crash.status, 'failed');
  assert.equal((await new CmdAgent('x', { first: 'echo "warning: no API key, using the local model"' }).turn(request(ws))).status, 'ok');
});

test('refused credentials are recognised in what agents print', () => {
  for (const line of ['No API key found', 'Error: ANTHROPIC_API_KEY: API key is not set', 'Not logged in · Please run /login', 'Login required', '401 Unauthorized', 'authentication failed', 'invalid x-api-key']) {
    assert.equal(refusedCredentialLine('', `some output\n${line}\n`), line, line);
  }
  for (const line of ['Traceback: KeyError: api_key', 'wrote auth.py (handles 401 responses)', 'logged in users see the dashboard']) {
    assert.equal(refusedCredentialLine(line, ''), undefined, line);
  }
});

test('symlinks an agent leaves pointing out of the workspace are removed and reported', async () => {
  const ws = workspace();
  const agent = new CmdAgent('x', { first: 'ln -s /etc/passwd leak && ln -s main.py alias && touch main.py' });
  const result = await agent.turn(request(ws));
  assert.deepEqual(result, { status: 'ok', usage: undefined, transcript: { output: '', stderr: '' }, note: 'refused leak (symlink-outside)' });
  assert.equal(existsSync(path.join(ws, 'leak')), false);
  assert.equal(readlinkSync(path.join(ws, 'alias')), 'main.py', 'a link inside the workspace is kept');
});

test('replay gives attempt i in round i, per trial when recorded so, then gives up', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-replay-'));
  for (const [rel, content] of [['p_07/python/0/main.py', 'v0'], ['p_07/python/1/main.py', 'v1'], ['p_07/python/trial-2/0/main.py', 'trial two']]) {
    mkdirSync(path.dirname(path.join(dir, rel!)), { recursive: true });
    writeFileSync(path.join(dir, rel!), content!);
  }
  symlinkSync('/root', path.join(dir, 'p_07/python/1/home'));
  const agent = new ReplayAgent('replay', dir);
  const ws = workspace();
  await agent.turn(request(ws, 0));
  assert.equal(readFileSync(path.join(ws, 'main.py'), 'utf8'), 'v0');
  const r1 = await agent.turn(request(ws, 1));
  assert.equal(readFileSync(path.join(ws, 'main.py'), 'utf8'), 'v1');
  assert.deepEqual(r1, { status: 'ok', note: 'refused home (symlink-outside)' });
  assert.deepEqual(await agent.turn(request(ws, 2)), { status: 'gave-up', reason: 'no recorded attempt 2 for p_07/python' });
  await agent.turn({ ...request(ws, 0), trial: 2 });
  assert.equal(readFileSync(path.join(ws, 'main.py'), 'utf8'), 'trial two');
});

test('a resumed chat agent is shown the task and the project again', async () => {
  const seen: { role: string; content: string }[][] = [];
  const transport: ChatTransport = {
    complete: async (_system, messages) => {
      seen.push(messages);
      return { ok: true, text: '<file path="main.py">\nprint(2)\n</file>', usage: {} };
    },
  };
  const ws = workspace();
  writeFileSync(path.join(ws, 'main.py'), 'print(1)\n');
  await new ChatAgent('m', transport).turn(request(ws, 3, 'Error class: code-bug'));
  const [context, ack, repair] = seen[0]!;
  assert.match(context!.content, /^TASK: demo\n\nThe project so far:\n<file path="main.py">\nprint\(1\)\n<\/file>$/);
  assert.equal(ack!.role, 'assistant');
  assert.equal(repair!.content, 'Error class: code-bug');
});

test('agent specs: labels, presets, missing keys and unknown kinds', () => {
  assert.equal(agentFromSpec(`claude@replay:${os.tmpdir()}`).name, 'claude');
  assert.throws(() => agentFromSpec('replay:/nonexistent/recordings'), /no such directory/);
  assert.equal(agentFromSpec('cmd:codex').name, 'codex');
  assert.equal(agentFromSpec('openai:model=gpt-x,base=http://127.0.0.1:1/v1').name, 'openai:gpt-x');
  assert.throws(() => agentFromSpec('openai:model=gpt-x', {}), /OPENAI_API_KEY is not set/);
  // A local endpoint needs no key, unless the spec names its variable: then the variable must be set.
  assert.equal(agentFromSpec('openai:model=m,base=http://127.0.0.1:1/v1', {}).name, 'openai:m');
  assert.throws(() => agentFromSpec('openai:model=m,base=http://127.0.0.1:1/v1,key-env=LOCAL_KEY', {}), /the environment variable LOCAL_KEY is not set/);
  assert.throws(() => agentFromSpec('anthropic:model=m,base=http://127.0.0.1:1,key-env=LOCAL_KEY', { LOCAL_KEY: '' }), /LOCAL_KEY is not set/);
  assert.throws(() => agentFromSpec('anthropic:base=http://x'), /model= is required/);
  assert.throws(() => agentFromSpec('gpt5'), /unknown agent "gpt5"/);
});
