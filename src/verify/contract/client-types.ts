/** What the evaluation client process is asked and answers (contract/client.ts runs it; serve.ts starts it). */
import type { PostmanRun } from './postman.js';
import type { SuiteRun } from './run-suite.js';

export interface ClientRequest {
  /** The API root, e.g. `http://127.0.0.1:8080/api`. */
  baseUrl: string;
  healthUrl: string;
  startupTimeoutMs: number;
  spec: string;
  collection?: string;
  timeoutMs: number;
}

export type StartupOutcome = { started: true; afterMs: number } | { started: false; reason: string };

export interface ClientResult {
  startup: StartupOutcome;
  contract?: SuiteRun;
  postman?: PostmanRun;
}

export const STARTED_LINE = 'envproof-client: started';
