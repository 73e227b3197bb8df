/**
 * Failures counted where they belong (real pip, npm and Maven, host sandbox, local servers on ports picked at run
 * time): only the registry being unreachable is infrastructure; a download or a hang the project asked for is the
 * agent's failure and stays in the denominators.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { completion, startFakeLlm } from '../agents/fake-llm.js';
import { runCliAsync } from '../helpers/cli.js';
import { closedPort, readStore, SUITE, tempStore, type StoreEntry } from './helpers.js';

type Files = Record<string, string>;

/** A scripted agent (JSON is YAML) whose rounds write these files. */
function script(rounds: Files[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-accounting-'));
  const file = path.join(dir, 'agent.yaml');
  writeFileSync(file, JSON.stringify({ default: rounds.map((files) => ({ files })) }));
  return file;
}

function run(agent: string, language: string, extra: string[] = [], env: Record<string, string> = {}) {
  const store = tempStore();
  const args = ['run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet', '--agent', agent, '--tasks', 'p_01', '--languages', language, '--repairs', '0', '--retries', '0', '--retry-delay', '0', ...extra];
  return runCliAsync(args, { env }).then((r) => ({ ...r, store }));
}

/** A server that accepts connections and never answers: a download that hangs. */
async function hangingServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const PY_MAIN = 'print("hello")\n';

// The tests of each describe run at once: each has its own store, agent script and servers, and waits mostly on an install.
describe('whose failure: the registry, or the project', { concurrency: true }, () => {
  let refused: number;
  let hanging: Awaited<ReturnType<typeof hangingServer>>;
  before(async () => {
    refused = await closedPort();
    hanging = await hangingServer();
  });
  after(() => hanging.close());

  test('pip: a tarball URL of the project that refuses connections is the agent\'s fetch failure, and counted', async () => {
    const agent = `scripted:${script([{ 'requirements.txt': `pkg @ http://127.0.0.1:${refused}/pkg-1.0.tar.gz\n`, 'main.py': PY_MAIN }])}`;
    const r = await run(agent, 'python');
    assert.equal(r.status, 1, `no run succeeded: exit 1\n${r.stdout}${r.stderr}`);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.status, 'done', 'counted, not set aside');
    assert.equal(stored.finalSuccess, false);
    assert.equal(attempts[0]!.errorClass, 'fetch-failure');
    assert.match(attempts[0]!.errorTail!, new RegExp(`127\\.0\\.0\\.1', port=${refused}`));
  });

  test('pip: the configured registry refusing connections is infrastructure: the run is set aside', async () => {
    const agent = `scripted:${script([{ 'requirements.txt': 'six==1.16.0\n', 'main.py': 'import six\n' }])}`;
    const r = await run(agent, 'python', [], { ENVPROOF_REGISTRY_PIP: `http://127.0.0.1:${refused}/simple/` });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /1 set aside \(infrastructure\)/);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.status, 'infrastructure-failed');
    assert.equal(attempts.length, 0);
  });

  test("npm: the project's own tarball URL refusing connections (ECONNREFUSED) is the agent's fetch failure", async () => {
    const pkg = { name: 'demo', version: '1.0.0', main: 'index.js', dependencies: { gone: `http://127.0.0.1:${refused}/gone-1.0.0.tgz` } };
    // The project's own .npmrc: no retries, so npm gives up at once instead of backing off for a minute.
    const agent = `scripted:${script([{ 'package.json': JSON.stringify(pkg), '.npmrc': 'fetch-retries=0\n', 'index.js': 'console.log("hi");\n' }])}`;
    const r = await run(agent, 'javascript');
    assert.equal(r.status, 1, `no run succeeded: exit 1\n${r.stdout}${r.stderr}`);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.status, 'done');
    assert.match(attempts[0]!.errorTail!, /ECONNREFUSED/, 'the wording that used to be taken for infrastructure');
    assert.equal(attempts[0]!.errorClass, 'fetch-failure');
  });

  test("npm: an install that hangs on the project's own tarball URL is the agent's timeout", async () => {
    const pkg = { name: 'demo', version: '1.0.0', main: 'index.js', dependencies: { slow: `http://127.0.0.1:${hanging.port}/slow-1.0.0.tgz` } };
    const agent = `scripted:${script([{ 'package.json': JSON.stringify(pkg), 'index.js': 'console.log("hi");\n' }])}`;
    const r = await run(agent, 'javascript', ['--install-timeout', '8']);
    assert.equal(r.status, 1, `no run succeeded: exit 1\n${r.stdout}${r.stderr}`);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.status, 'done');
    assert.equal(attempts[0]!.errorClass, 'timeout');
    assert.equal(attempts[0]!.step, 'install');
  });

  test("Maven: the project's own repository refusing connections is the agent's fetch failure", async () => {
    const pom = `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>demo</groupId><artifactId>demo</artifactId><version>1</version>
<repositories><repository><id>project-repo</id><url>http://127.0.0.1:${refused}/maven/</url></repository></repositories>
<dependencies><dependency><groupId>com.example.envproof</groupId><artifactId>not-in-central</artifactId><version>1.0</version></dependency></dependencies>
</project>\n`;
    const agent = `scripted:${script([{ 'pom.xml': pom, 'src/main/java/demo/App.java': 'package demo; public class App { public static void main(String[] a) {} }\n' }])}`;
    const r = await run(agent, 'java');
    assert.equal(r.status, 1, `no run succeeded: exit 1\n${r.stdout}${r.stderr}`);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.status, 'done');
    assert.match(attempts[0]!.errorTail!, /Connection refused/);
    assert.equal(attempts[0]!.errorClass, 'fetch-failure');
  });

  test('Maven: a mirror of Maven Central (ENVPROOF_REGISTRY_MAVEN) refusing connections is infrastructure', async () => {
    const pom = `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>demo</groupId><artifactId>demo</artifactId><version>1</version>
<dependencies><dependency><groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>2.10.1</version></dependency></dependencies>
</project>\n`;
    const agent = `scripted:${script([{ 'pom.xml': pom, 'src/main/java/demo/App.java': 'package demo; public class App { public static void main(String[] a) {} }\n' }])}`;
    const r = await run(agent, 'java', [], { ENVPROOF_REGISTRY_MAVEN: `http://127.0.0.1:${refused}/maven2/` });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.status, 'infrastructure-failed');
    assert.equal(attempts.length, 0);
  });
});

describe('restarts, unknown manifests, sandbox and attribution of envproof run', { concurrency: true }, () => {
  test('a run restarted after infrastructure-failed starts afresh: its abandoned attempts are deleted first', async () => {
    // The model API answers rounds 0 and 1 without any file (the agent's failures, recorded), then is down (503).
    const api = await startFakeLlm([{ json: completion('no files here', 10, 5) }, { json: completion('still none', 10, 5) }, { status: 503, text: 'down' }]);
    const store = tempStore();
    const base = ['run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet', '--tasks', 'p_01', '--languages', 'python', '--retries', '0', '--retry-delay', '0', '--repairs', '2'];
    try {
      const r1 = await runCliAsync([...base, '--agent', `claude@openai:model=m,base=${api.url}/v1`]);
      assert.equal(r1.status, 1, r1.stdout + r1.stderr);
    } finally {
      await api.close();
    }
    const [aside] = (await readStore(store));
    assert.equal(aside!.run.status, 'infrastructure-failed');
    assert.deepEqual(aside!.attempts.map((a) => [a.attempt, a.errorClass]), [[0, 'agent-error'], [1, 'agent-error']], 'kept until the restart');

    // The same run again (same agent name), now succeeding at once.
    const second = `claude@scripted:${script([{ 'requirements.txt': '', 'main.py': PY_MAIN }])}`;
    const r2 = await runCliAsync([...base, '--agent', second]);
    assert.equal(r2.status, 0, r2.stdout + r2.stderr);
    const [done] = (await readStore(store));
    assert.equal(done!.run.status, 'done');
    assert.equal(done!.run.firstSuccess, true);
    assert.deepEqual(done!.attempts.map((a) => [a.attempt, a.success]), [[0, true]], 'no attempt of the abandoned run is left');
  });

  test('a missing first manifest M(0) is an unknown D1 (null); the attempt records the requested sandbox', async () => {
    const agent = `scripted:${script([{ 'main.py': PY_MAIN }, { 'requirements.txt': 'six==1.16.0\n', 'main.py': 'import six\nprint(six.PY3)\n' }])}`;
    const r = await run(agent, 'python', ['--repairs', '1']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.finalSuccess, true);
    assert.equal(stored.declared, null, 'not "declared nothing"');
    assert.equal(stored.claimedCount, null);
    assert.deepEqual(stored.installed, ['six']);
    assert.deepEqual(attempts.map((a) => [a.step, a.sandbox]), [['manifest', 'host'], [null, 'host']]);
  });

  test('--java-attribution opened: D3 is the jars the JVM opened, as in the paper', async () => {
    // The gson/jackson fixture declares commons-lang3 first and never uses it: opened, never loaded from.
    const replay = mkdtempSync(path.join(os.tmpdir(), 'envproof-replay-'));
    cpSync(path.join(import.meta.dirname, '..', 'ecosystems', 'java', 'fixtures', 'gson-jackson'), path.join(replay, 'p_01', 'java', '0'), { recursive: true });
    const r = await run(`replay:${replay}`, 'java', ['--java-attribution', 'opened', '--timeout', '180']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const [{ run: stored }] = (await readStore(r.store)) as [StoreEntry];
    assert.equal(stored.firstSuccess, true);
    assert.deepEqual(stored.traced, ['commons-lang3', 'gson', 'jackson-annotations', 'jackson-core', 'jackson-databind']);
  });
});

describe('compiler configuration is build configuration, not a code bug (real javac and g++)', { concurrency: true }, () => {
  test('Java: "Source option 5 is no longer supported" (round 0), then an error in the code (round 1)', async () => {
    const pom = (source: string) => `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>demo</groupId><artifactId>demo</artifactId><version>1</version>
<properties><maven.compiler.source>${source}</maven.compiler.source><maven.compiler.target>${source}</maven.compiler.target></properties>
</project>\n`;
    const app = (body: string) => `package demo; public class App { public static void main(String[] a) { ${body} } }\n`;
    const agent = `scripted:${script([
      { 'pom.xml': pom('5'), 'src/main/java/demo/App.java': app('') },
      { 'pom.xml': pom('17'), 'src/main/java/demo/App.java': app('int x = "text";') },
    ])}`;
    const r = await run(agent, 'java', ['--repairs', '1']);
    assert.equal(r.status, 1, `no run succeeded: exit 1\n${r.stdout}${r.stderr}`);
    const [{ run: stored, attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.match(attempts[0]!.errorTail!, /Source option 5 is no longer supported/);
    assert.deepEqual(attempts.map((a) => [a.step, a.errorClass]), [['build', 'build-configuration'], ['build', 'code-bug']]);
    assert.equal(stored.initialErrorType, 'BuildConfig');
  });

  test('C++: an unsupported -std flag (round 0), then an undeclared name in the code (round 1)', async () => {
    const cmake = (flags: string) => `cmake_minimum_required(VERSION 3.16)\nproject(app CXX)\nset(CMAKE_CXX_FLAGS "${flags}")\nadd_executable(app main.cpp)\n`;
    const agent = `scripted:${script([
      { 'CMakeLists.txt': cmake('-std=c++29'), 'main.cpp': 'int main() { return 0; }\n' },
      { 'CMakeLists.txt': cmake(''), 'main.cpp': 'int main() { return undefined_thing; }\n' },
    ])}`;
    const r = await run(agent, 'cpp', ['--repairs', '1']);
    assert.equal(r.status, 1, `no run succeeded: exit 1\n${r.stdout}${r.stderr}`);
    const [{ attempts }] = (await readStore(r.store)) as [StoreEntry];
    assert.match(attempts[0]!.errorTail!, /-std=c\+\+29/);
    assert.deepEqual(attempts.map((a) => [a.step, a.errorClass]), [['build', 'build-configuration'], ['build', 'code-bug']]);
  });
});
