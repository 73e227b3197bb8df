// tier: quick
/** The contract suite's definition against the Conduit document, schema validation, and the backend task suite. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import { OpenApiContract } from '../../src/verify/contract/openapi.js';
import { acceptedStatuses, runContractSuite, uncoveredOperations } from '../../src/verify/contract/run-suite.js';
import { assertionIds, CONDUIT_SUITE } from '../../src/verify/contract/suite.js';
import { runCli } from '../helpers/cli.js';
import { SPEC, writeTree } from './helpers.js';

test('the suite exercises every operation of the document; 40 scored requests and an unscored cleanup, 107 distinct assertions', () => {
  const contract = OpenApiContract.load(SPEC);
  assert.equal(contract.operations.length, 19);
  assert.deepEqual(uncoveredOperations(contract), []);
  assert.equal(CONDUIT_SUITE.length, 41);
  assert.deepEqual(CONDUIT_SUITE.filter((s) => s.assertions.length === 0).map((s) => s.id), ['cleanup-celeb-article']);
  const ids = assertionIds();
  assert.equal(ids.length, 107);
  assert.equal(new Set(ids).size, 107);
  for (const step of CONDUIT_SUITE) assert.ok(contract.operation(step.operation), step.id);
});

test("response bodies are validated against the document's own schemas (refs, required fields, formats)", () => {
  const contract = OpenApiContract.load(SPEC);
  const user = contract.bodyValidator('Login', '200')!;
  const good = { user: { email: 'a@b.c', token: 't', username: 'a', bio: '', image: '' } };
  assert.equal(user(good), true);
  assert.equal(user({ user: { ...good.user, bio: undefined } }), false);
  assert.match(JSON.stringify(user.errors), /must have required property 'bio'/);
  const article = contract.bodyValidator('GetArticle', '200')!;
  const a = { slug: 's', title: 't', description: 'd', body: 'b', tagList: [], createdAt: '2024-01-02T03:04:05.678Z', updatedAt: '2024-01-02T03:04:05.678Z', favorited: false, favoritesCount: 0, author: { username: 'u', bio: '', image: '', following: false } };
  assert.equal(article({ article: a }), true);
  assert.equal(article({ article: { ...a, createdAt: 'yesterday' } }), false, 'format date-time is checked');
  assert.equal(article({ article: { ...a, favoritesCount: '0' } }), false);
  assert.equal(contract.bodyValidator('DeleteArticle', '200'), null, 'an empty 200 has no body schema');
});

test('the backend suite: 80 tasks over the given contract, prompts with the contract and the constraint blocks', () => {
  const list = runCli(['tasks', 'list', '--suite', 'backend', '--spec', SPEC, '--json']);
  assert.equal(list.status, 0, list.stderr);
  const tasks = JSON.parse(list.stdout) as { id: string; complexity: string; backend: { framework: string; level: number; constraints: Record<string, string> } }[];
  assert.equal(tasks.length, 80);
  const levels = tasks.filter((t) => t.backend.framework === 'koa').map((t) => t.complexity);
  assert.deepEqual(levels, ['L0', 'L1', 'L1', 'L1', 'L2', 'L2', 'L2', 'L2', 'L3', 'L3']);
  assert.ok(tasks.every((t) => !t.backend.constraints.orm || t.backend.constraints.database), 'an ORM only with a database');

  const show = runCli(['tasks', 'show', 'fastapi-clean-postgresql-orm', '--suite', 'backend', '--spec', SPEC]);
  assert.equal(show.status, 0, show.stderr);
  assert.ok(show.stdout.includes(readFileSync(SPEC, 'utf8').trim().split('\n').slice(0, 40).join('\n')), 'the contract is in the prompt');
  assert.match(show.stdout, /Use the FastAPI framework\./);
  assert.match(show.stdout, /## Architecture\n/);
  assert.match(show.stdout, /PostgreSQL\. A server is running for you at host localhost, port 5432, database conduit, user user, password password/);
  assert.match(show.stdout, /through the SQLAlchemy ORM/);
  assert.match(show.stdout, /Listen on port 8080/);
  const baseline = runCli(['tasks', 'show', 'hono-baseline', '--suite', 'backend', '--spec', SPEC]);
  assert.doesNotMatch(baseline.stdout, /## Architecture|## Database|ORM/);
  assert.match(baseline.stdout, /Listen on port 3000/);

  const noSpec = runCli(['tasks', 'list', '--suite', 'backend']);
  assert.equal(noSpec.status, 2);
  assert.match(noSpec.stderr, /the backend suite needs the API contract/);
});

test('a status assertion accepts exactly the statuses the document lists for the operation', async () => {
  const contract = OpenApiContract.load(SPEC);
  const step = (id: string) => CONDUIT_SUITE.find((s) => s.id === id)!;
  // From the document (openapi.yml): GetCurrentUser, CreateArticle and GetArticlesFeed list 401 and 422; CreateUser only 422.
  for (const id of ['current-user-anonymous', 'create-article-anonymous', 'feed-anonymous', 'login-wrong-password']) assert.deepEqual(acceptedStatuses(contract, step(id)), [401, 422], id);
  assert.deepEqual(acceptedStatuses(contract, step('register-duplicate')), [422]);
  assert.deepEqual(acceptedStatuses(contract, step('register')), [201]);

  // The same steps against a document that lists only 401 for GET /user: read from the document, not built in.
  const doc = parse(readFileSync(SPEC, 'utf8'));
  delete doc.paths['/user'].get.responses['422'];
  const narrowed = OpenApiContract.load(`${writeTree({ 'openapi.yml': stringify(doc) })}/openapi.yml`);
  assert.deepEqual(acceptedStatuses(narrowed, step('current-user-anonymous')), [401]);

  // A real server that answers 422 to every request: the anonymous reads pass their status, nothing else does.
  const server = http.createServer((req, res) => req.resume().on('end', () => setTimeout(() => res.writeHead(422, { 'content-type': 'application/json' }).end('{"errors":{"body":["no"]}}'), 5)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    const passed = (run: Awaited<ReturnType<typeof runContractSuite>>) => run.assertions.filter((a) => a.passed).map((a) => a.id);
    const statusOnly = (ids: string[]) => ids.filter((id) => id.endsWith('.status'));
    const t = performance.now();
    const run = await runContractSuite(base, contract);
    const wall = performance.now() - t;
    assert.deepEqual(statusOnly(passed(run)), ['register-duplicate.status', 'login-wrong-password.status', 'current-user-anonymous.status', 'create-article-anonymous.status', 'feed-anonymous.status']);
    // The suite's own time spans its requests (each answered after 5 ms) and lies within the caller's.
    const requestsMs = run.requests.reduce((sum, r) => sum + r.durationMs, 0);
    assert.ok(requestsMs >= 5 * run.requests.filter((r) => r.status).length && run.durationMs >= requestsMs - run.requests.length && run.durationMs <= wall + 1, `${run.durationMs} ms, requests ${requestsMs} ms, wall ${wall} ms`);
    const narrowRun = await runContractSuite(base, narrowed);
    assert.equal(narrowRun.assertions.find((a) => a.id === 'current-user-anonymous.status')!.message, 'expected 401, got 422');
  } finally {
    server.close();
  }
});
