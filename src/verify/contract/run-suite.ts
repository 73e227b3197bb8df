/** Runs envproof's contract suite against a server: one request per step, in order, each assertion recorded. */
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../../core/errors.js';
import type { OpenApiContract } from './openapi.js';
import { CONDUIT_SUITE, type AssertionKind, type AssertionSpec, type Response, type StepSpec, type SuiteContext } from './suite.js';

export interface AssertionResult {
  /** `step.assertion`. */
  id: string;
  kind: AssertionKind;
  description: string;
  passed: boolean;
  /** Why it failed. */
  message?: string;
}

export interface RequestRecord {
  step: string;
  method: string;
  path: string;
  status?: number;
  durationMs: number;
  /** Why the request was not made or got no answer. */
  error?: string;
}

export interface SuiteRun {
  suite: 'envproof-conduit';
  passed: number;
  total: number;
  /** The whole suite's time, from its first request to its last answer. */
  durationMs: number;
  assertions: AssertionResult[];
  requests: RequestRecord[];
}

const REQUEST_TIMEOUT_MS = 15_000;

/** Operations of the contract that no step exercises (empty for the Conduit document). */
export function uncoveredOperations(contract: OpenApiContract, suite: readonly StepSpec[] = CONDUIT_SUITE): string[] {
  const used = new Set(suite.map((s) => s.operation));
  return contract.operations.map((o) => o.id).filter((id) => !used.has(id));
}

function newContext(): SuiteContext {
  const tag = randomBytes(4).toString('hex');
  const password = `envproof-${tag}-secret`;
  return {
    vars: {},
    user: { username: `envproof_${tag}`, email: `envproof_${tag}@example.test`, password },
    celeb: { username: `celeb_envproof_${tag}`, email: `celeb_envproof_${tag}@example.test`, password },
    suffix: tag,
  };
}

/**
 * The statuses a step accepts, read from the document: its success code when the operation lists it, or every
 * client error (4xx) the operation lists when the step expects one (Conduit lists 401 and 422 for an anonymous
 * `GET /user`).
 */
export function acceptedStatuses(contract: OpenApiContract, step: StepSpec): number[] {
  const listed = contract.operation(step.operation).statuses.map(Number).filter(Number.isInteger);
  if (step.expect < 400) return listed.filter((c) => c === step.expect);
  return listed.filter((c) => c >= 400 && c < 500);
}

function descriptionOf(contract: OpenApiContract, step: StepSpec, a: AssertionSpec): string {
  return a.kind === 'status' ? `status ${acceptedStatuses(contract, step).join(' or ') || `${step.expect} (not in the document)`}` : a.description;
}

function checkStatus(contract: OpenApiContract, step: StepSpec, res: Response): true | string {
  const codes = acceptedStatuses(contract, step);
  if (codes.length === 0) return `the document lists no ${step.expect < 400 ? step.expect : 'client error'} for ${step.operation}`;
  return codes.includes(res.status) || `expected ${codes.join(' or ')}, got ${res.status}`;
}

function failAll(contract: OpenApiContract, step: StepSpec, message: string): AssertionResult[] {
  return step.assertions.map((a) => ({ id: `${step.id}.${a.id}`, kind: a.kind, description: descriptionOf(contract, step, a), passed: false, message }));
}

/** `baseUrl` ends with the API prefix, e.g. `http://127.0.0.1:8080/api`. */
export async function runContractSuite(baseUrl: string, contract: OpenApiContract, suite: readonly StepSpec[] = CONDUIT_SUITE): Promise<SuiteRun> {
  const started = performance.now();
  const ctx = newContext();
  const assertions: AssertionResult[] = [];
  const requests: RequestRecord[] = [];
  for (const step of suite) {
    const op = contract.operation(step.operation);
    const method = op.method.toUpperCase();
    const missing = (step.needs ?? []).filter((v) => ctx.vars[v] === undefined || ctx.vars[v] === null || ctx.vars[v] === '');
    if (missing.length > 0) {
      const error = `not run: an earlier step did not give ${missing.join(', ')}`;
      requests.push({ step: step.id, method, path: op.path, durationMs: 0, error });
      assertions.push(...failAll(contract, step, error));
      continue;
    }
    const params = step.params?.(ctx) ?? {};
    const pathname = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
    const query = step.query ? `?${new URLSearchParams(step.query(ctx)).toString()}` : '';
    const headers: Record<string, string> = { accept: 'application/json' };
    const body = step.body?.(ctx);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (step.auth) headers.authorization = `Token ${String(ctx.vars[step.auth])}`;
    const started = performance.now();
    let res: Response;
    try {
      const answer = await fetch(`${baseUrl}${pathname}${query}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await answer.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      res = { status: answer.status, json };
    } catch (err) {
      const e = err as { name?: string; cause?: { code?: string } };
      const error = `no answer: ${e.name === 'TimeoutError' ? `timed out after ${REQUEST_TIMEOUT_MS / 1000} s` : (e.cause?.code ?? errorMessage(err))}`;
      requests.push({ step: step.id, method, path: pathname, durationMs: Math.round(performance.now() - started), error });
      assertions.push(...failAll(contract, step, error));
      continue;
    }
    requests.push({ step: step.id, method, path: pathname + query, status: res.status, durationMs: Math.round(performance.now() - started) });
    for (const a of step.assertions) {
      const outcome = a.kind === 'schema' ? checkSchema(contract, step, res) : a.kind === 'status' ? checkStatus(contract, step, res) : a.check!(res, ctx);
      assertions.push({ id: `${step.id}.${a.id}`, kind: a.kind, description: descriptionOf(contract, step, a), passed: outcome === true, ...(outcome === true ? {} : { message: outcome }) });
    }
    // A success with another code than the document's still carries usable state (a token, a slug).
    if (res.status >= 200 && res.status < 300) step.learn?.(res, ctx);
  }
  const durationMs = Math.round(performance.now() - started);
  return { suite: 'envproof-conduit', passed: assertions.filter((a) => a.passed).length, total: assertions.length, durationMs, assertions, requests };
}

function checkSchema(contract: OpenApiContract, step: StepSpec, res: Response): true | string {
  const validate = contract.bodyValidator(step.operation, String(step.expect));
  if (!validate) return `the document defines no JSON body for ${step.operation} ${step.expect}`;
  if (res.json === undefined) return 'the body is not JSON';
  if (validate(res.json)) return true;
  return (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`.trim())
    .join('; ');
}
