import type { ChatMessage, ChatReply, ChatTransport } from './chat.js';
import { httpFailure, networkFailure } from './chat.js';

export interface AnthropicOptions {
  /** e.g. https://api.anthropic.com */
  baseUrl: string;
  model: string;
  apiKey?: string;
  maxTokens: number;
}

interface MessagesBody {
  content?: { type: string; text?: string }[];
  usage?: { input_tokens?: number; output_tokens?: number };
}

/** The Anthropic Messages API (`POST /v1/messages`). */
export class AnthropicTransport implements ChatTransport {
  constructor(private readonly opts: AnthropicOptions) {}

  async complete(system: string, messages: ChatMessage[], timeoutMs: number): Promise<ChatReply> {
    const url = `${this.opts.baseUrl.replace(/\/$/, '')}/v1/messages`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          ...(this.opts.apiKey ? { 'x-api-key': this.opts.apiKey } : {}),
        },
        body: JSON.stringify({ model: this.opts.model, max_tokens: this.opts.maxTokens, system, messages }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      return networkFailure('the Messages API', err);
    }
    const text = await res.text();
    if (!res.ok) return httpFailure('the Messages API', res.status, text);
    let body: MessagesBody;
    try {
      body = JSON.parse(text) as MessagesBody;
    } catch {
      return { ok: false, retryable: false, reason: 'the Messages API did not answer JSON' };
    }
    const reply = (body.content ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('');
    return { ok: true, text: reply, usage: { inputTokens: body.usage?.input_tokens, outputTokens: body.usage?.output_tokens } };
  }
}
