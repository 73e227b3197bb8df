import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCliAsync } from '../helpers/cli.js';
import { readStore, SUITE, tempStore } from '../protocol/helpers.js';
import { completion, startFakeLlm } from './fake-llm.js';

const BROKEN = [
  'Here is the project.',
  '<file path="requirements.txt">',
  'six==1.16.0',
  '</file>',
  '<file path="main.py">',
  'import os, sys',
  'import six, yaml',
  '# The agent\'s key must never reach the program.',
  'sys.exit(3 if "FAKE_LLM_KEY" in os.environ else 0)',
  '</file>',
].join('\n');

const FIXED = ['<file path="requirements.txt">', 'six==1.16.0', 'PyYAML==6.0.2', '</file>'].join('\n');

test('the openai adapter against a local chat-completions server: history, usage, repair', async () => {
  const llm = await startFakeLlm([{ json: completion(BROKEN, 120, 80) }, { json: completion(FIXED, 300, 20) }]);
  try {
    const store = tempStore();
    const r = await runCliAsync(
      ['run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet', '--tasks', 'p_01', '--languages', 'python', '--repairs', '2',
        '--agent', `openai:model=fake-model,base=${llm.url}/v1,key-env=FAKE_LLM_KEY`],
      { env: { FAKE_LLM_KEY: 'sk-test-123' } },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(llm.requests.length, 2);
    const [first, second] = llm.requests;
    assert.equal(first!.url, '/v1/chat/completions');
    assert.equal(first!.headers.authorization, 'Bearer sk-test-123');
    assert.equal(first!.body.model, 'fake-model');
    assert.equal(first!.body.messages[0].role, 'system');
    assert.match(first!.body.messages[0].content, /<file path=/);
    assert.match(first!.body.messages[1].content, /^TASK: Greeter/);
    // Round 1 carries the conversation: the task, the first reply, then the error of attempt 0.
    assert.deepEqual(second!.body.messages.map((m: { role: string }) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(second!.body.messages[2].content, BROKEN);
    assert.match(second!.body.messages[3].content, /Error class: missing-dependency/);
    assert.match(second!.body.messages[3].content, /No module named 'yaml'/);

    const { run, attempts } = (await readStore(store))[0]!;
    assert.equal(run.agent, 'openai:fake-model');
    assert.equal(run.finalSuccess, true, 'the program did not see the agent key (it exits 3 when it does)');
    assert.deepEqual(run.declared, ['six']);
    assert.deepEqual(run.installed, ['pyyaml', 'six']);
    assert.deepEqual(attempts.map((a) => [a.tokensIn, a.tokensOut]), [[120, 80], [300, 20]]);
  } finally {
    await llm.close();
  }
});
