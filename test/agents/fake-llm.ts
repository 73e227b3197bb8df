import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** When the request arrived (Date.now()). */
  at: number;
}

/** Extra response headers (Retry-After) and the content type of a text reply (default text/plain). */
type ReplyHeaders = { headers?: Record<string, string>; contentType?: string };

/** A canned reply: JSON, text with a status (an HTML error page), or no answer at all (a hung endpoint). */
export type CannedReply = ({ status?: number; json: unknown } & ReplyHeaders) | ({ status: number; text: string } & ReplyHeaders) | { hang: true };

/**
 * A local HTTP server that answers chat requests with canned replies, in order, and records what it was sent.
 * A reply may be a status code alone, to test error handling.
 */
export async function startFakeLlm(replies: CannedReply[]) {
  const requests: RecordedRequest[] = [];
  const hung = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: data ? JSON.parse(data) : undefined, at: Date.now() });
      const reply = replies[requests.length - 1];
      if (!reply) {
        res.writeHead(500).end('no more canned replies');
        return;
      }
      if ('hang' in reply) {
        hung.add(res);
        return;
      }
      if ('text' in reply) res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain', ...reply.headers }).end(reply.text);
      else res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((r) => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      server.close(() => r());
    });
  return { url: `http://127.0.0.1:${port}`, requests, close };
}

/** A chat-completions response carrying the given text. */
export function completion(content: string, promptTokens: number, completionTokens: number) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}
