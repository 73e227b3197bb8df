/**
 * The view's HTTP server (node:http): read-only pages over one store. Every request must carry the token printed at
 * start, in the URL (`?token=`, which sets a cookie and redirects to the same URL without it) or in that cookie;
 * anything else is refused. Only GET and HEAD; nothing but the store and the two assets is served, under a
 * Content-Security-Policy that lets a page load its own style sheet and script and nothing else.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvproofError, errorMessage, UsageError } from '../core/errors.js';
import { CLIENT_SCRIPT, STYLE_SHEET } from './assets.js';
import { layout, type Page } from './layout.js';
import { backendPage } from './page-backend.js';
import { filePage } from './page-file.js';
import { figuresPage } from './page-figures.js';
import { instancePage, reproListPage } from './page-repro.js';
import { attemptTrees, runPage } from './page-run.js';
import { runsPage } from './page-runs.js';
import { route, type Route } from './routes.js';
import { pageOf, parsePage, parseTableQuery, queryParams } from './run-table.js';
import { html } from './safe-html.js';
import type { StoreView } from './store-view.js';

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface ViewServerOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** Told about requests that failed on the server's side (a bug or a lost store), not about refused ones. */
  onError?(message: string): void;
}

export interface ViewServer {
  /** The URL to open, with the token. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

interface Reply {
  status: number;
  type: string;
  body: string;
  headers?: Record<string, string>;
}

const ASSETS: Record<string, Omit<Reply, 'status'>> = {
  'view.css': { type: 'text/css; charset=utf-8', body: STYLE_SHEET },
  'view.js': { type: 'text/javascript; charset=utf-8', body: CLIENT_SCRIPT },
};

class NotFound extends Error {}

/** Figure pages kept (one per filter) until the store changes. */
const MAX_CACHED_FIGURES = 32;

function sameToken(given: string | undefined | null, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

async function pageFor(view: StoreView, r: Route, params: URLSearchParams, figures: Map<string, Page>): Promise<Page> {
  switch (r.page) {
    case 'runs': {
      const snapshot = await view.snapshot();
      return runsPage(snapshot, parseTableQuery(params, snapshot.sources));
    }
    case 'figures': {
      const snapshot = await view.snapshot();
      const q = parseTableQuery(params, snapshot.sources);
      const key = `${snapshot.stamp} ${queryParams(q, { page: 1 })}`;
      // Kept while the store is unchanged, for a bounded number of filters.
      if (figures.size >= MAX_CACHED_FIGURES || ![...figures.keys()].every((k) => k.startsWith(`${snapshot.stamp} `))) figures.clear();
      let page = figures.get(key);
      if (!page) figures.set(key, (page = await figuresPage(snapshot, q)));
      return page;
    }
    case 'run': {
      const stamp = await view.stamp();
      const detail = await view.run(r.key);
      if (!detail) throw new NotFound(`no run ${r.key.agent} · ${r.key.taskId} · ${r.key.language} · trial ${r.key.trial} of source ${r.key.source} in this store (yet)`);
      return runPage(detail, await attemptTrees(detail.attempts, (h) => view.tree(h)), stamp);
    }
    case 'file': {
      const stamp = await view.stamp();
      const tree = await view.tree(r.tree);
      const entry = tree?.entries.find((e) => e.path === r.path);
      if (!tree || !entry) throw new NotFound(`no file ${r.path} in tree ${r.tree.slice(0, 12)}`);
      return filePage(r.tree, entry, tree, stamp);
    }
    case 'repro': {
      const stamp = await view.stamp();
      const rows = await view.instances();
      return reproListPage(rows, stamp, pageOf(rows, parsePage(params)));
    }
    case 'instance': {
      const stamp = await view.stamp();
      const row = await view.instance(r.corpus, r.instanceId);
      if (!row) throw new NotFound(`no re-run ${r.instanceId} in corpus ${r.corpus}`);
      return instancePage(row, stamp);
    }
    case 'backend': {
      const snapshot = await view.snapshot();
      const all = snapshot.input.backend;
      return backendPage(all, pageOf(all, parsePage(params)), snapshot.stamp);
    }
    case 'stamp':
    case 'asset':
      throw new Error(`${r.page} is not a page`);
  }
}

function errorPage(status: number, title: string, message: string, stamp: string): Page {
  return { title, status, stamp, body: html`<h1>${title}</h1><p data-error>${message}</p><p><a href="/">all runs</a></p>` };
}

async function reply(view: StoreView, url: URL, figures: Map<string, Page>): Promise<Reply> {
  const r = route(url.pathname);
  if (r?.page === 'asset') {
    const asset = ASSETS[r.name];
    if (!asset) return { status: 404, type: 'text/plain; charset=utf-8', body: 'not found\n' };
    return { status: 200, ...asset };
  }
  if (r?.page === 'stamp') return { status: 200, type: 'application/json', body: JSON.stringify({ stamp: await view.stamp() }) };
  let page: Page;
  try {
    if (!r) throw new NotFound(`nothing at ${url.pathname}`);
    page = await pageFor(view, r, url.searchParams, figures);
  } catch (err) {
    if (err instanceof NotFound) page = errorPage(404, 'Not found', err.message, await view.stamp());
    else if (err instanceof UsageError) page = errorPage(400, 'Bad request', err.message, await view.stamp());
    else throw err;
  }
  return { status: page.status ?? 200, type: 'text/html; charset=utf-8', body: layout(page, view.location) };
}

/** Starts the server; it reads the store only through `view`. */
export async function startViewServer(view: StoreView, opts: ViewServerOptions): Promise<ViewServer> {
  const token = randomBytes(24).toString('hex');
  const figures = new Map<string, Page>();
  let cookie = 'envproof-view';
  const server = http.createServer((req, res) => {
    const send = (r: Reply) => {
      res.writeHead(r.status, { ...SECURITY_HEADERS, 'Content-Type': r.type, ...r.headers });
      res.end(req.method === 'HEAD' ? undefined : r.body);
    };
    const text = (status: number, body: string, headers?: Record<string, string>) => send({ status, type: 'text/plain; charset=utf-8', body, ...(headers ? { headers } : {}) });
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'envproof view is read-only: GET and HEAD only\n', { Allow: 'GET, HEAD' });
    const url = new URL(req.url ?? '/', 'http://view.invalid');
    const given = url.searchParams.get('token');
    if (given !== null) {
      if (!sameToken(given, token)) return text(403, 'forbidden: wrong token; open the URL envproof view printed\n');
      url.searchParams.delete('token');
      // The token goes into a cookie of this server only, and out of the address bar (and of any link copied from it).
      return send({ status: 303, type: 'text/plain; charset=utf-8', body: '', headers: { Location: url.pathname + url.search, 'Set-Cookie': `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/` } });
    }
    if (!sameToken(cookieValue(req.headers.cookie, cookie), token)) return text(403, 'forbidden: this page needs the token; open the URL envproof view printed (…/?token=…)\n');
    reply(view, url, figures).then(send, (err: unknown) => {
      opts.onError?.(`${url.pathname}: ${errorMessage(err)}`);
      if (!res.headersSent) text(500, `envproof view could not read the store: ${errorMessage(err)}\n`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new EnvproofError(`cannot listen on ${opts.host}:${opts.port}: ${err.code === 'EADDRINUSE' ? 'the port is taken' : err.message}`, err.code === 'EADDRINUSE' ? 'Choose another --port, or --port 0 for any free one.' : undefined)),
    );
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // One cookie per port: two views on one host keep their own tokens.
  cookie = `envproof-view-${port}`;
  // Listening on every interface, the URL names this machine's loopback address (the one certain to reach it).
  const shownHost = opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host === '::' ? '[::1]' : opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
