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
  timeoutMs: number;
}

export type AgentTurnResult =
  | { status: 'ok'; usage?: Usage; note?: string }
  /** The agent has nothing more to offer (a replay that ran out of attempts). */
  | { status: 'gave-up'; reason: string }
  /** The agent itself failed (crash, time limit, unusable reply); counted as the agent's failure. */
  | { status: 'failed'; reason: string; usage?: Usage }
  /** The service could not be reached; an infrastructure failure, retried and never counted as the agent's. */
  | { status: 'unavailable'; reason: string };

export interface Agent {
  /** The name runs are stored under, e.g. `claude`, `openai:gpt-4o`, `replay`. */
  readonly name: string;
  turn(req: AgentTurnRequest): Promise<AgentTurnResult>;
}
