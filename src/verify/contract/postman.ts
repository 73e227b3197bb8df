/**
 * The Postman collection given with `--collection`, run with Newman (its Node API) for comparability with the
 * seed's 291 assertions. The collection is read from the user's path, never copied into the project. Its
 * assertion count depends on the responses (tests inside `if` branches), so unlike envproof's own suite its
 * denominator is what Newman ran.
 */
import { randomBytes } from 'node:crypto';
import newman, { type NewmanSummary } from 'newman';
import type { AssertionResult, RequestRecord } from './run-suite.js';

export { loadCollection } from './collection.js';

export interface PostmanRun {
  suite: 'postman';
  passed: number;
  total: number;
  assertions: AssertionResult[];
  requests: RequestRecord[];
  /** Test scripts that threw (e.g. on a body that is not JSON): their later assertions never ran. */
  scriptErrors: string[];
}

/** Runs the collection against `baseUrl` (the collection's `{{APIURL}}`), with a fresh user for this run. */
export async function runPostman(collection: unknown, baseUrl: string, timeoutMs: number): Promise<PostmanRun> {
  const tag = randomBytes(4).toString('hex');
  const environment = {
    name: 'envproof',
    values: [
      { key: 'APIURL', value: baseUrl },
      { key: 'USERNAME', value: `newman_${tag}` },
      { key: 'EMAIL', value: `newman_${tag}@example.test` },
      { key: 'PASSWORD', value: `newman-${tag}-secret` },
    ],
  };
  const summary = await new Promise<NewmanSummary>((resolve, reject) => {
    newman.run({ collection, environment, reporters: [], timeoutRequest: 15_000, timeout: timeoutMs, ignoreRedirects: true }, (err, s) => (err ? reject(err) : resolve(s)));
  });
  const assertions: AssertionResult[] = [];
  const requests: RequestRecord[] = [];
  summary.run.executions.forEach((e, i) => {
    const step = `${i + 1}. ${e.item.name}`;
    requests.push({
      step,
      method: e.request?.method ?? '',
      path: e.request?.url?.toString() ?? '',
      ...(e.response?.code !== undefined ? { status: e.response.code } : {}),
      durationMs: e.response?.responseTime ?? 0,
      ...(e.requestError ? { error: e.requestError.code ?? e.requestError.message ?? 'request failed' } : {}),
    });
    for (const a of e.assertions ?? []) {
      if (a.skipped) continue;
      assertions.push({ id: `${step} / ${a.assertion}`, kind: 'value', description: a.assertion, passed: !a.error, ...(a.error ? { message: a.error.message ?? 'failed' } : {}) });
    }
  });
  const scriptErrors = summary.run.failures
    .filter((f) => f.error.name !== 'AssertionError')
    .map((f) => `${f.source?.name ?? '?'}: ${f.error.name ?? 'Error'}: ${f.error.message ?? ''}`);
  return { suite: 'postman', passed: assertions.filter((a) => a.passed).length, total: assertions.length, assertions, requests, scriptErrors };
}
