/**
 * The optional LLM judge of logic errors: one of six root causes per failed evaluation, from the failed
 * assertions, the verifiers and the server's log, asked of a chat API at temperature 0 through the agent
 * adapters. Its agreement with manual labels is reported as Cohen's κ.
 */
import type { ChatTransport } from '../agents/chat.js';
import { EnvproofError } from '../core/errors.js';
import { tail } from '../core/process.js';
import { cohensKappa, type KappaResult } from '../metrics/kappa.js';
import { ROOT_CAUSE_MEANING, ROOT_CAUSES, type RootCause } from './taxonomy.js';

/** What the judge sees of one failed evaluation. */
export interface JudgeEvidence {
  framework: string;
  constraints: Record<string, string | undefined>;
  failed: { id: string; message?: string }[];
  passedCount: number;
  total: number;
  serverLog: string;
  verifiers?: { name: string; passed: boolean }[];
}

export interface Judgement {
  rootCause: RootCause;
  reason: string;
}

const LOG_LINES = 60;
const FAILED_SHOWN = 40;
const TIMEOUT_MS = 120_000;

export const JUDGE_SYSTEM = [
  'You classify why a generated REST API server failed its behavioural tests. The server started and has its routes,',
  'but some assertions failed. Choose exactly one root cause:',
  ...ROOT_CAUSES.map((c) => `- ${c}: ${ROOT_CAUSE_MEANING[c]}`),
  'Answer with one JSON object and nothing else: {"root_cause": "<one of the names above>", "reason": "<one sentence>"}',
].join('\n');

export function judgePrompt(e: JudgeEvidence): string {
  const constraints = Object.entries(e.constraints).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(', ') || 'none beyond the framework';
  return [
    `Framework: ${e.framework}. Constraints: ${constraints}.`,
    `Assertions passed: ${e.passedCount} of ${e.total}. Failed assertions (request.check: why):`,
    ...e.failed.slice(0, FAILED_SHOWN).map((a) => `- ${a.id}: ${a.message ?? ''}`),
    ...(e.failed.length > FAILED_SHOWN ? [`- ... and ${e.failed.length - FAILED_SHOWN} more`] : []),
    ...(e.verifiers?.length ? ['Verifiers: ' + e.verifiers.map((v) => `${v.name} ${v.passed ? 'holds' : 'violated'}`).join(', ')] : []),
    '',
    `Server log (last ${LOG_LINES} lines):`,
    '```',
    tail(e.serverLog || '(empty)', LOG_LINES),
    '```',
  ].join('\n');
}

/** Reads the judge's answer: the JSON object, possibly inside a code fence or surrounded by words. */
export function parseJudgement(text: string): Judgement {
  const m = /\{[\s\S]*\}/.exec(text);
  let doc: { root_cause?: unknown; reason?: unknown } | undefined;
  try {
    doc = m ? (JSON.parse(m[0]) as typeof doc) : undefined;
  } catch {
    doc = undefined;
  }
  const cause = typeof doc?.root_cause === 'string' ? doc.root_cause.trim().toLowerCase() : '';
  if (!(ROOT_CAUSES as readonly string[]).includes(cause)) {
    throw new EnvproofError(`the judge's answer names no known root cause: ${text.slice(0, 200)}`, `it must answer {"root_cause": one of ${ROOT_CAUSES.join(', ')}}`);
  }
  return { rootCause: cause as RootCause, reason: typeof doc?.reason === 'string' ? doc.reason : '' };
}

export async function judge(transport: ChatTransport, e: JudgeEvidence, explain?: (system: string, prompt: string) => void): Promise<Judgement> {
  const prompt = judgePrompt(e);
  explain?.(JUDGE_SYSTEM, prompt);
  const reply = await transport.complete(JUDGE_SYSTEM, [{ role: 'user', content: prompt }], TIMEOUT_MS);
  if (!reply.ok) throw new EnvproofError(`the judge could not answer: ${reply.reason}`, reply.retryable ? 'try again later' : undefined);
  return parseJudgement(reply.text);
}

/** A manually labelled failure: the judge's evidence and the root cause a person gave it. */
export interface LabelledFailure {
  id: string;
  evidence: JudgeEvidence;
  label: RootCause;
}

export interface AgreementReport extends KappaResult {
  items: { id: string; label: RootCause; judged: RootCause }[];
}

export async function judgeAgreement(transport: ChatTransport, labelled: readonly LabelledFailure[], explain?: (system: string, prompt: string) => void): Promise<AgreementReport> {
  const items: AgreementReport['items'] = [];
  for (const l of labelled) items.push({ id: l.id, label: l.label, judged: (await judge(transport, l.evidence, explain)).rootCause });
  return { ...cohensKappa(items.map((i) => [i.label, i.judged] as const)), items };
}
