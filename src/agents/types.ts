import type { EcosystemId } from '../core/types.js';

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

/** The error of the previous attempt, as fed back to the agent in a repair round. */
export interface AttemptError {
  class: string;
  /** Which step failed: install, build, run, entry. */
  step: string;
  tail: string;
}

export interface AgentTurnRequest {
  taskId: string;
  language: EcosystemId;
  trial: number;
  /** 0 = generation, 1..k = repair rounds. */
  round: number;
  /** The task prompt (round 0) or the repair prompt (later rounds). */
  prompt: string;
  /** The original task prompt, on every round. */
  taskPrompt: string;
  /**
   * Host directory holding the project: empty in round 0, the previous attempt's tree afterwards. The agent
   * leaves its project here, editing in place (command-line agents) or through writeProjectFiles.
   */
  workspace: string;
  error?: AttemptError;
  /** Time limit of the whole turn (a command-line agent's run). */
  timeoutMs: number;
  /** Time limit of one request of an HTTP agent (a hung endpoint is given up on after it, and retried). */
  requestTimeoutMs?: number;
  /** Aborted when the run is being stopped (Ctrl-C, SIGTERM, a refused credential elsewhere): end the turn now. */
  signal?: AbortSignal;
}

/** What the agent said in a turn: kept with the attempt (bounded there). */
export interface AgentTranscript {
  /** A command-line agent's standard output; an HTTP agent's reply text. */
  output: string;
  /** A command-line agent's standard error. */
  stderr?: string;
}

export type AgentTurnResult =
  | { status: 'ok'; usage?: Usage; note?: string; transcript?: AgentTranscript }
  /** The agent has nothing more to offer (a replay that ran out of attempts). */
  | { status: 'gave-up'; reason: string }
  /** The agent itself failed (crash, time limit, unusable reply); counted as the agent's failure. */
  | { status: 'failed'; reason: string; usage?: Usage; transcript?: AgentTranscript }
  /**
   * The service could not be reached or did not answer as its API does; an infrastructure failure, retried and never
   * counted as the agent's. `cause` is the short form shown while waiting (`HTTP 429`, `timed out`, `ECONNREFUSED`);
   * `retryAfterSec` what the service asked for (Retry-After).
   */
  | { status: 'unavailable'; reason: string; cause: string; retryAfterSec?: number };

export interface Agent {
  /** The name runs are stored under, e.g. `claude`, `openai:gpt-4o`, `replay`. */
  readonly name: string;
  turn(req: AgentTurnRequest): Promise<AgentTurnResult>;
}
