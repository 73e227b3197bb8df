import { postChat, type ChatMessage, type ChatReply, type ChatTransport } from './chat.js';

export interface AnthropicOptions {
  /** e.g. https://api.anthropic.com */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The environment variable the key was read from (named in the hint when the key is refused). */
  keyEnv?: string;
  maxTokens: number;
  temperature?: number;
}

interface MessagesBody {
  content?: { type: string; text?: string }[];
  usage?: { input_tokens?: number; output_tokens?: number };
}

/** The Anthropic Messages API (`POST /v1/messages`). */
export class AnthropicTransport implements ChatTransport {
  constructor(private readonly opts: AnthropicOptions) {}

  complete(system: string, messages: ChatMessage[], timeoutMs: number, signal?: AbortSignal): Promise<ChatReply> {
    const o = this.opts;
    return postChat<MessagesBody>(
      { service: 'the Messages API', url: `${o.baseUrl.replace(/\/$/, '')}/v1/messages`, keyEnv: o.apiKey ? o.keyEnv : undefined },
      { 'anthropic-version': '2023-06-01', ...(o.apiKey ? { 'x-api-key': o.apiKey } : {}) },
      { model: o.model, max_tokens: o.maxTokens, system, messages, ...(o.temperature !== undefined ? { temperature: o.temperature } : {}) },
      { timeoutMs, signal },
      (body) => {
        const text = (body.content ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('');
        return { ok: true, text, usage: { inputTokens: body.usage?.input_tokens, outputTokens: body.usage?.output_tokens } };
      },
    );
  }
}
