/** Records as the results store keeps them. */
import type { RunRecord, RunSource, TaskInfo } from '../metrics/aggregate-types.js';

/** `running` while `envproof run` records it; only `done` runs enter the metrics. */
export type RunStatus = 'running' | 'done' | 'infrastructure-failed';

/** A run plus what the store keeps beside the metrics' view of it. */
export interface StoredRun extends RunRecord {
  /** Default `done`. */
  status?: RunStatus;
  /** Why the run was set aside (`infrastructure-failed`): the last failure of the machinery, as it was reported (v7). */
  statusReason?: string | null;
  /** The imported row's cells by column name (imported runs only). */
  raw?: Record<string, string> | null;
  /** Where the run came from, e.g. `file.csv:12` for imported rows. */
  origin?: string | null;
}

/** One Gen or Repair round of an `envproof run` (issue 5); attempt 0 is the first generation. */
export interface AttemptRecord {
  attempt: number;
  /** Content hash of the project tree the agent produced. */
  treeHash: string | null;
  /** The manifest file's path and content as written by the agent. */
  manifestPath: string | null;
  manifest: string | null;
  success: boolean;
  errorClass: string | null;
  errorTail: string | null;
  startedAt: string | null;
  durationMs: number | null;
  tokensIn: number | null;
  tokensOut: number | null;
  costUsd: number | null;
  /** The step that failed (install, build, run, ...), or null on success. */
  step?: string | null;
  /** What the agent adapter reported: refused files, agent failures. */
  note?: string | null;
  /** Milliseconds per phase: agent, prepare, install, build, run, analysis, envproof (its own bookkeeping). */
  phasesMs?: Record<string, number> | null;
  /** The sandbox backend the attempt ran in (the one requested when it never reached a sandbox). */
  sandbox?: string | null;
  /** What the agent was sent: the task's prompt (attempt 0), or the repair prompt with the last failure; bounded (v8). */
  prompt?: string | null;
  /** What the agent said: a command-line agent's standard output, an HTTP agent's reply text; bounded (v7). */
  agentOutput?: string | null;
  /** A command-line agent's standard error; bounded (v7). */
  agentStderr?: string | null;
  /** What the program printed (stdout then stderr) when it ran, whether it succeeded or not; bounded (v7). */
  programOutput?: string | null;
}

/** A task as the store keeps it: per source, so that two sources never share (or overwrite) a domain. */
export interface StoredTask extends TaskInfo {
  source: RunSource;
}

/** Identifies a run: a re-import or re-run with the same key replaces it. */
export interface RunKey {
  source: RunRecord['source'];
  agent: string;
  language: RunRecord['language'];
  taskId: string;
  trial: number;
}

/** The behavioural evaluation of one attempt of a backend task (schema v3: `backend_evaluations`). */
export interface BackendEvaluationRecord {
  attempt: number;
  framework: string;
  /** 0–3: how many of architecture, database, ORM the task imposes. */
  level: number;
  constraints: { architecture?: string; database?: string; orm?: string };
  passed: boolean;
  failureClass?: string;
  rootCause?: string;
  rootCauseNote?: string;
  /** A% of envproof's suite (0–100), without and with the verifiers. */
  aLenient: number;
  aStrict: number;
  postmanPct?: number;
  /** Per verifier: rules, verdict (and the strict ORM verdict), and the first of its evidence (file, 1-based line or 0). */
  verifiers?: { name: string; rules: string; passed: boolean; strict?: boolean; evidence?: { file: string; line: number; message: string }[] }[];
  /** Every assertion of envproof's suite: id, passed, and why it failed. */
  assertions: { id: string; passed: boolean; message?: string }[];
  postman?: { passed: number; total: number };
  startup: { started: boolean; afterMs?: number; reason?: string };
  serverLog?: string;
}

/** One entry of a project tree: a file (with its blob hash) or a symlink (with its target). */
export interface TreeEntry {
  path: string;
  kind: 'file' | 'symlink';
  executable: boolean;
  /** sha256 of the content (files) or of the link target (symlinks). */
  blob: string;
}

export interface TreeSnapshot {
  /** sha256 over the sorted entries: equal trees have equal hashes. */
  hash: string;
  entries: TreeEntry[];
  /** Content by blob hash. */
  blobs: Map<string, Buffer>;
}
