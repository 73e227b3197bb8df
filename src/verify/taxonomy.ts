/**
 * The failure taxonomy of a backend evaluation: seven coarse classes decided by rules where the evidence is
 * unambiguous, and six root causes of logic errors left to an optional LLM judge (judge.ts).
 */
import type { RequestRecord, SuiteRun } from './contract/run-suite.js';

export const COARSE_CLASSES = [
  'incomplete-submission',
  'install-failure',
  'startup-failure',
  'server-crash',
  'missing-routes',
  'logic-error',
  'constraint-violation',
] as const;
export type CoarseClass = (typeof COARSE_CLASSES)[number];

export const COARSE_MEANING: Record<CoarseClass, string> = {
  'incomplete-submission': 'no run.sh or no manifest: there is nothing to install and start',
  'install-failure': 'the dependencies did not install',
  'startup-failure': 'run.sh ran but the server never answered its health check',
  'server-crash': 'the server answered, then stopped answering during the suite',
  'missing-routes': 'the server answers, but a quarter or more of the requests hit no route (404/405)',
  'logic-error': 'the server starts and has its routes, but behaves other than the contract says',
  'constraint-violation': 'the behaviour is right, but a structural verifier does not hold',
};

export const ROOT_CAUSES = [
  'incorrect-query-logic',
  'db-orm-runtime-error',
  'auth-misconfiguration',
  'framework-idiosyncrasy',
  'business-logic-defect',
  'state-propagation-failure',
] as const;
export type RootCause = (typeof ROOT_CAUSES)[number];

export const ROOT_CAUSE_MEANING: Record<RootCause, string> = {
  'incorrect-query-logic': 'queries run but return wrong results (joins, filters, dialect-incompatible operators)',
  'db-orm-runtime-error': 'the query logic is right in intent but crashes from database or ORM API misuse',
  'auth-misconfiguration': 'broken token handling or header parsing makes authenticated requests fail (401)',
  'framework-idiosyncrasy': 'correct application code blocked by a framework default (e.g. empty-body POSTs rejected)',
  'business-logic-defect': 'the infrastructure works but the domain behaviour deviates from the contract',
  'state-propagation-failure': 'writes succeed but later reads do not show their effect',
};

/** Steps whose expected answer is itself a 4xx: a 404 there is not a missing route. */
const EXPECTS_CLIENT_ERROR = new Set(['get-deleted-article']);
const MISSING_ROUTE_SHARE = 0.25;

export interface TaxonomyInput {
  submitted: boolean;
  installFailed: boolean;
  started: boolean;
  contract?: SuiteRun;
  verifiersHold: boolean;
}

function routeMisses(requests: readonly RequestRecord[]): number {
  return requests.filter((r) => !EXPECTS_CLIENT_ERROR.has(r.step) && (r.status === 404 || r.status === 405)).length;
}

/** The coarse class of a failed evaluation (undefined when it passed). */
export function coarseClass(e: TaxonomyInput): CoarseClass | undefined {
  if (!e.submitted) return 'incomplete-submission';
  if (e.installFailed) return 'install-failure';
  if (!e.started || !e.contract) return 'startup-failure';
  const made = e.contract.requests.filter((r) => !r.error?.startsWith('not run'));
  if (made.some((r) => r.error?.startsWith('no answer'))) return 'server-crash';
  if (made.length > 0 && routeMisses(made) / made.length >= MISSING_ROUTE_SHARE) return 'missing-routes';
  if (e.contract.passed < e.contract.total) return 'logic-error';
  return e.verifiersHold ? undefined : 'constraint-violation';
}
