/**
 * The Postman collection given with `--collection`, run with Newman (its Node API) for comparability with the
 * seed's 291 assertions. The collection is read from the user's path, never copied into the project. Its
 * assertion count depends on the responses (tests inside `if` branches), so the denominator is what Newman ran
 * plus what the test scripts that threw still owed: a script error fails every assertion of its script, those
 * that ran before it and those it never reached.
 */
import { randomBytes } from 'node:crypto';
import newman, { type NewmanSummary } from 'newman';
import type { AssertionResult, RequestRecord } from './run-suite.js';
import { scriptAssertionCount } from './script-assertions.js';

export { loadCollection } from './collection.js';

export interface PostmanRun {
  suite: 'postman';
  passed: number;
  total: number;
  /** Newman's whole run, from its start to its end. */
  durationMs: number;
  assertions: AssertionResult[];
  requests: RequestRecord[];
  /** Test scripts that threw (e.g. on a body that is not JSON): all their assertions are failed. */
  scriptErrors: string[];
  /** Assertions the scripts that threw never reached, counted in `total` as failed. */
  lostToScriptErrors: number;
}

/** Runs the collection against `baseUrl` (the collection's `{{APIURL}}`), with a fresh user for this run. */
export async function runPostman(collection: unknown, baseUrl: string, timeoutMs: number): Promise<PostmanRun> {
  const started = performance.now();
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
  const thrown = summary.run.failures.filter((f) => f.error.name !== 'AssertionError');
  let lost = 0;
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
    const error = thrown.find((f) => f.source?.id !== undefined && f.source.id === e.item.id);
    const threw = error && `the test script threw: ${error.error.name ?? 'Error'}: ${error.error.message ?? ''}`;
    const ran = (e.assertions ?? []).filter((a) => !a.skipped);
    for (const a of ran) {
      const message = threw ?? a.error?.message ?? (a.error ? 'failed' : undefined);
      assertions.push({ id: `${step} / ${a.assertion}`, kind: 'value', description: a.assertion, passed: message === undefined, ...(message !== undefined ? { message } : {}) });
    }
    if (!threw) return;
    const script = (e.item.events?.members ?? []).filter((ev) => ev.listen === 'test').flatMap((ev) => ev.script?.exec ?? []);
    const owed = Math.max(0, scriptAssertionCount(script) - ran.length);
    for (let k = 1; k <= owed; k++) assertions.push({ id: `${step} / (not reached ${k} of ${owed})`, kind: 'value', description: 'an assertion the test script never reached', passed: false, message: threw });
    lost += owed;
  });
  const scriptErrors = thrown.map((f) => `${f.source?.name ?? '?'}: ${f.error.name ?? 'Error'}: ${f.error.message ?? ''}`);
  const durationMs = Math.round(performance.now() - started);
  return { suite: 'postman', passed: assertions.filter((a) => a.passed).length, total: assertions.length, durationMs, assertions, requests, scriptErrors, lostToScriptErrors: lost };
}
