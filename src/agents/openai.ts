import { postChat, type ChatMessage, type ChatReply, type ChatTransport } from './chat.js';

export interface OpenAiOptions {
  /** e.g. https://api.openai.com/v1, http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The environment variable the key was read from (named in the hint when the key is refused). */
  keyEnv?: string;
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

  complete(system: string, messages: ChatMessage[], timeoutMs: number, signal?: AbortSignal): Promise<ChatReply> {
    const o = this.opts;
    return postChat<CompletionBody>(
      { service: 'the chat-completions endpoint', url: `${o.baseUrl.replace(/\/$/, '')}/chat/completions`, keyEnv: o.apiKey ? o.keyEnv : undefined },
      o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
      {
        model: o.model,
        messages: [{ role: 'system', content: system }, ...messages],
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
      },
      { timeoutMs, signal },
      (body) => {
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== 'string') return { ok: false, retryable: false, reason: 'the reply has no choices[0].message.content' };
        return { ok: true, text: content, usage: { inputTokens: body.usage?.prompt_tokens, outputTokens: body.usage?.completion_tokens } };
      },
    );
  }
}
