// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ecosystemIds } from '../../src/ecosystems/index.js';
import { backendTasks, renderBackendPrompt } from '../../src/tasks/backend.js';
import { renderPrompt } from '../../src/tasks/prompt.js';
import type { AuditReport } from '../../src/audit/report.js';
import { sandboxLabel } from '../../src/protocol/execute.js';
import { resolveSuite } from '../../src/tasks/resolve.js';
import { brokenPromises, measurePromise, promisedTools, toolsLabel, toolVersions, versionAtLeast, type ToolRunner } from '../../src/ecosystems/promise.js';

describe("the prompts' promise about the clean machine", () => {
  it('compares dotted versions numerically, not as text', () => {
    assert.equal(versionAtLeast('20.20.2', '20'), true);
    assert.equal(versionAtLeast('18.20.4', '20'), false);
    assert.equal(versionAtLeast('3.9.18', '3.10'), false, '9 < 10, although "9" > "1" as text');
    assert.equal(versionAtLeast('3.11.2', '3.10'), true);
    assert.equal(versionAtLeast('3.22', '3.22'), true);
    assert.equal(versionAtLeast('3.21.9', '3.22'), false);
    assert.equal(versionAtLeast('17.0.13', '17'), true);
    assert.equal(versionAtLeast('1.26.8', '1.26'), true);
    assert.equal(versionAtLeast('1.25.9', '1.26'), false);
    assert.equal(versionAtLeast('12.2.0-14', '12'), true, 'a Debian suffix after the numbers is ignored');
    assert.equal(versionAtLeast('unknown', '1'), false);
  });

  it('says what each prompt promises, in the words of its runtime line', () => {
    const promised = (l: Parameters<typeof promisedTools>[0]) => promisedTools(l).map((t) => `${t.check.name}${t.atLeast ? `>=${t.atLeast}` : ''}`);
    assert.deepEqual(promised('python'), ['python3>=3.10', 'pip']);
    assert.deepEqual(promised('javascript'), ['node>=20', 'npm']);
    assert.deepEqual(promised('java'), ['javac>=17', 'java>=17', 'mvn']);
    assert.deepEqual(promised('cpp'), ['g++>=12', 'cmake>=3.22']);
    assert.deepEqual(promised('go'), ['go>=1.26']);
    for (const l of ecosystemIds()) assert.ok(promisedTools(l).length > 0, l);
  });

  it("reads each tool's version from its own output and flags a runtime older than promised", async () => {
    // What Debian bookworm's nodejs and npm packages print: the environment envproof had before Node 20.
    const bookworm: ToolRunner = async (argv) => ({ exitCode: 0, stdout: argv[0] === 'node' ? 'v18.20.4\n' : '9.2.0\n', stderr: '' });
    const old = await measurePromise('javascript', bookworm);
    assert.deepEqual(old.map((r) => [r.name, r.version, r.kept]), [['node', '18.20.4', false], ['npm', '9.2.0', true]]);
    assert.deepEqual(brokenPromises(old), ['node 18.20.4 (the prompts promise 20 or newer)']);

    // java prints its version on stderr.
    const jdk: ToolRunner = async (argv) =>
      argv[0] === 'java'
        ? { exitCode: 0, stdout: '', stderr: 'openjdk version "17.0.13" 2024-10-15\n' }
        : argv[0] === 'javac'
          ? { exitCode: 0, stdout: 'javac 17.0.13\n', stderr: '' }
          : { exitCode: 0, stdout: 'Apache Maven 3.8.7\nMaven home: /usr/share/maven\n', stderr: '' };
    const java = await measurePromise('java', jdk);
    assert.deepEqual(brokenPromises(java), []);
    assert.deepEqual(toolVersions(java), { javac: '17.0.13', java: '17.0.13', mvn: '3.8.7' });
    assert.equal(toolsLabel(toolVersions(java)), 'javac 17.0.13, java 17.0.13, mvn 3.8.7');
  });

  it('a tool that does not run breaks the promise, whatever it printed', async () => {
    const missing: ToolRunner = async () => ({ exitCode: 127, stdout: '', stderr: 'Python 3.11.2\n' });
    const r = await measurePromise('python', missing);
    assert.deepEqual(brokenPromises(r), ['python3 did not run or printed no version', 'pip did not run or printed no version']);
    assert.deepEqual(toolVersions(r), {});
  });

  it('the bundled prompts name the system the environments are (Debian 12), and each runtime as promised', () => {
    const task = resolveSuite('bundled').tasks[0]!;
    for (const l of ecosystemIds()) {
      const text = renderPrompt(task, l, 'explicit');
      assert.match(text, /on a clean Debian 12 machine where only /, l);
      assert.doesNotMatch(text, /Ubuntu/, l);
    }
    assert.match(renderPrompt(task, 'javascript', 'explicit'), /where only Node\.js 20 \(LTS\) is installed/);
  });

  it('the backend prompts promise the Node.js the JavaScript environment runs (20), and Python 3.11', () => {
    const tasks = backendTasks();
    const js = tasks.find((t) => t.backend.language === 'javascript')!;
    const py = tasks.find((t) => t.backend.language === 'python')!;
    assert.match(renderBackendPrompt(js, 'openapi: 3.0.0\n'), /complete Node\.js 20 server/);
    assert.match(renderBackendPrompt(js, 'openapi: 3.0.0\n'), /A clean machine with only Node\.js 20 installs package\.json/);
    assert.doesNotMatch(renderBackendPrompt(js, 'openapi: 3.0.0\n'), /Node\.js 18/);
    assert.match(renderBackendPrompt(py, 'openapi: 3.0.0\n'), /complete Python 3\.11 server/);
  });

  it("a stored attempt's sandbox names the tools that ran when the audit reported them", () => {
    const report = { sandbox: { backend: 'bwrap', requested: 'auto', tools: { node: '20.20.2', npm: '10.8.2' } } } as unknown as AuditReport;
    assert.equal(sandboxLabel('bwrap', report), 'bwrap (node 20.20.2, npm 10.8.2)');
    assert.equal(sandboxLabel('auto', undefined), 'auto', 'no report (the attempt never reached the sandbox): the backend only');
  });
});
