import { EnvproofError } from '../core/errors.js';
import { projectAsFileBlocks, writeProjectFiles } from './project-files.js';
import { REPLY_FORMAT_INSTRUCTIONS, parseFileBlocks } from './reply-format.js';
import type { Agent, AgentTurnRequest, AgentTurnResult, Usage } from './types.js';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export type ChatReply = { ok: true; text: string; usage: Usage } | { ok: false; retryable: boolean; reason: string };

/** One chat-completion call of a provider's HTTP API. */
export interface ChatTransport {
  complete(system: string, messages: ChatMessage[], timeoutMs: number): Promise<ChatReply>;
}

/** An HTTP error status as a reply: rate limits and server errors may pass, the rest need the user. */
export function httpFailure(service: string, status: number, body: string): ChatReply {
  if (status === 401 || status === 403) {
    throw new EnvproofError(`${service} refused the API key (HTTP ${status})`, 'check the key in the environment variable named by key-env=');
  }
  return { ok: false, retryable: status === 429 || status >= 500, reason: `${service} answered HTTP ${status}: ${body.slice(0, 300)}` };
}

/**
 * POSTs a JSON body to a chat API and parses the JSON answer; `read` picks the reply out of it. HTTP and
 * network failures become the matching ChatReply.
 */
export async function postChat<T>(
  service: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
  read: (answer: T) => ChatReply,
): Promise<ChatReply> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    return networkFailure(service, err);
  }
  const text = await res.text();
  if (!res.ok) return httpFailure(service, res.status, text);
  let answer: T;
  try {
    answer = JSON.parse(text) as T;
  } catch {
    return { ok: false, retryable: false, reason: `${service} did not answer JSON` };
  }
  return read(answer);
}

/** What a failed request (no HTTP answer) means. */
export function networkFailure(service: string, err: unknown): ChatReply {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const why = e.name === 'TimeoutError' ? 'timed out' : (e.cause?.code ?? e.cause?.message ?? e.message ?? String(err));
  return { ok: false, retryable: true, reason: `${service} could not be reached: ${why}` };
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
    const reply = await this.transport.complete(REPLY_FORMAT_INSTRUCTIONS, messages, req.timeoutMs);
    if (!reply.ok) return reply.retryable ? { status: 'unavailable', reason: reply.reason } : { status: 'failed', reason: reply.reason };
    this.conversations.set(key, [...messages, { role: 'assistant', content: reply.text }]);
    const parsed = parseFileBlocks(reply.text);
    if (parsed.files.length === 0) return { status: 'failed', reason: 'the reply contained no <file> blocks', usage: reply.usage };
    const rejected = await writeProjectFiles(req.workspace, parsed.files);
    const notes = [
      ...rejected.map((r) => `refused ${r.path} (${r.reason})`),
      ...parsed.unterminated.map((p) => `unterminated block for ${p}`),
    ];
    return { status: 'ok', usage: reply.usage, ...(notes.length ? { note: notes.join('; ') } : {}) };
  }
}
