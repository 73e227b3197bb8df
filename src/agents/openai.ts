import type { ChatMessage, ChatReply, ChatTransport } from './chat.js';
import { httpFailure, networkFailure } from './chat.js';

export interface OpenAiOptions {
  /** e.g. https://api.openai.com/v1, http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
}

interface CompletionBody {
  choices?: { message?: { content?: string | null } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM, OpenRouter). */
export class OpenAiTransport implements ChatTransport {
  constructor(private readonly opts: OpenAiOptions) {}

  async complete(system: string, messages: ChatMessage[], timeoutMs: number): Promise<ChatReply> {
    const url = `${this.opts.baseUrl.replace(/\/$/, '')}/chat/completions`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.opts.model,
          messages: [{ role: 'system', content: system }, ...messages],
          ...(this.opts.temperature !== undefined ? { temperature: this.opts.temperature } : {}),
          ...(this.opts.maxTokens !== undefined ? { max_tokens: this.opts.maxTokens } : {}),
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      return networkFailure('the chat-completions endpoint', err);
    }
    const text = await res.text();
    if (!res.ok) return httpFailure('the chat-completions endpoint', res.status, text);
    let body: CompletionBody;
    try {
      body = JSON.parse(text) as CompletionBody;
    } catch {
      return { ok: false, retryable: false, reason: 'the chat-completions endpoint did not answer JSON' };
    }
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== 'string') return { ok: false, retryable: false, reason: 'the reply has no choices[0].message.content' };
    return {
      ok: true,
      text: content,
      usage: { inputTokens: body.usage?.prompt_tokens, outputTokens: body.usage?.completion_tokens },
    };
  }
}
