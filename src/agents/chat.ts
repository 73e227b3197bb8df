import { AgentMisconfigured, refusedKey, RESUME_HINT } from './misconfigured.js';
import { projectAsFileBlocks, writeProjectFiles } from './project-files.js';
import { REPLY_FORMAT_INSTRUCTIONS, parseFileBlocks } from './reply-format.js';
import type { Agent, AgentTurnRequest, AgentTurnResult, Usage } from './types.js';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export type ChatReply =
  | { ok: true; text: string; usage: Usage }
  /** The model answered, but not usably (no text): the agent's failure. */
  | { ok: false; retryable: false; reason: string }
  /** The service failed (rate limit, server error, no answer, an answer that is not its API's JSON): retried. */
  | { ok: false; retryable: true; reason: string; cause: string; retryAfterSec?: number };

/** One chat-completion call of a provider's HTTP API; `signal` aborts it (the run is being stopped). */
export interface ChatTransport {
  complete(system: string, messages: ChatMessage[], timeoutMs: number, signal?: AbortSignal): Promise<ChatReply>;
}

/** The server's own words from an error body: the JSON `error.message` (OpenAI, Anthropic), else the text, tags stripped. */
export function serverMessage(body: string, max = 300): string {
  let text = body;
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const candidate = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message ?? j.detail);
    if (typeof candidate === 'string') text = candidate;
  } catch {
    text = body.replace(/<[^>]*>/g, ' ');
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat || '(empty body)';
}

/** Seconds a Retry-After header asks for (delta-seconds or an HTTP date), if it says anything usable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Where the credentials of a chat API come from, for the hint of a refusal. */
export interface Endpoint {
  service: string;
  url: string;
  /** The environment variable the key was read from; undefined when none is used. */
  keyEnv: string | undefined;
}

/**
 * An HTTP error status as a reply: rate limits and server errors are retried; a refused key (401/403) or an unknown
 * model or path (404) is the user's configuration and stops the run; any other status is the agent's failure.
 */
export function httpFailure(endpoint: Endpoint, status: number, body: string, retryAfter: string | null): ChatReply {
  const { service } = endpoint;
  const message = serverMessage(body);
  if (status === 401 || status === 403) throw refusedKey(service, status, message, endpoint.keyEnv);
  if (status === 404) {
    throw new AgentMisconfigured(`${service} answered HTTP 404 for ${endpoint.url}: ${message}`, `check model= and base= of the agent spec (base is the API root, e.g. http://localhost:8000/v1); ${RESUME_HINT}`);
  }
  const reason = `${service} answered HTTP ${status}: ${message}`;
  if (status === 429 || status >= 500) {
    const after = retryAfterSeconds(retryAfter);
    return { ok: false, retryable: true, reason, cause: `HTTP ${status}`, ...(after === undefined ? {} : { retryAfterSec: after }) };
  }
  return { ok: false, retryable: false, reason };
}

/**
 * POSTs a JSON body to a chat API and parses the JSON answer; `read` picks the reply out of it. HTTP and
 * network failures become the matching ChatReply; so does an answer that is not JSON (a proxy's HTML page).
 */
export async function postChat<T>(
  endpoint: Endpoint,
  headers: Record<string, string>,
  body: unknown,
  limits: { timeoutMs: number; signal?: AbortSignal },
  read: (answer: T) => ChatReply,
): Promise<ChatReply> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: limits.signal ? AbortSignal.any([timeout, limits.signal]) : timeout,
    });
    text = await res.text();
  } catch (err) {
    return networkFailure(endpoint.service, err, timeout.aborted);
  }
  if (!res.ok) return httpFailure(endpoint, res.status, text, res.headers.get('retry-after'));
  let answer: T;
  try {
    answer = JSON.parse(text) as T;
  } catch {
    const type = res.headers.get('content-type') ?? 'no content type';
    return { ok: false, retryable: true, reason: `${endpoint.service} answered HTTP ${res.status} with something that is not JSON (${type}): ${serverMessage(text, 120)}`, cause: 'not JSON' };
  }
  return read(answer);
}

/** What a failed request (no HTTP answer) means; `timedOut` when the request's own time limit ended it. */
export function networkFailure(service: string, err: unknown, timedOut = false): ChatReply {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const why = timedOut || e.name === 'TimeoutError' ? 'timed out' : (e.cause?.code ?? e.cause?.message ?? e.message ?? String(err));
  return { ok: false, retryable: true, reason: `${service} could not be reached: ${why}`, cause: why };
}

/**
 * An agent behind a chat API. The conversation of each (task, language, trial) carries over between rounds,
 * so a repair round sees the earlier prompts and replies.
 */
export class ChatAgent implements Agent {
  private readonly conversations = new Map<string, ChatMessage[]>();

  constructor(
    readonly name: string,
    private readonly transport: ChatTransport,
  ) {}

  async turn(req: AgentTurnRequest): Promise<AgentTurnResult> {
    const key = `${req.taskId}/${req.language}/${req.trial}`;
    const history = req.round === 0 ? [] : this.conversations.get(key);
    // A resumed run has lost the conversation: restate the task and the project as it stands.
    const context: ChatMessage[] = history ?? [{ role: 'user', content: `${req.taskPrompt}\n\nThe project so far:\n${await projectAsFileBlocks(req.workspace)}` }, { role: 'assistant', content: 'Understood.' }];
    const messages: ChatMessage[] = [...context, { role: 'user', content: req.prompt }];
    const reply = await this.transport.complete(REPLY_FORMAT_INSTRUCTIONS, messages, req.requestTimeoutMs ?? req.timeoutMs, req.signal);
    if (!reply.ok) {
      return reply.retryable
        ? { status: 'unavailable', reason: reply.reason, cause: reply.cause, ...(reply.retryAfterSec === undefined ? {} : { retryAfterSec: reply.retryAfterSec }) }
        : { status: 'failed', reason: reply.reason };
    }
    this.conversations.set(key, [...messages, { role: 'assistant', content: reply.text }]);
    const transcript = { output: reply.text };
    const parsed = parseFileBlocks(reply.text);
    if (parsed.files.length === 0) return { status: 'failed', reason: 'the reply contained no <file> blocks', usage: reply.usage, transcript };
    const rejected = await writeProjectFiles(req.workspace, parsed.files);
    const notes = [
      ...rejected.map((r) => `refused ${r.path} (${r.reason})`),
      ...parsed.unterminated.map((p) => `unterminated block for ${p}`),
    ];
    return { status: 'ok', usage: reply.usage, transcript, ...(notes.length ? { note: notes.join('; ') } : {}) };
  }
}
