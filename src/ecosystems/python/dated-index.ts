/**
 * A read-only view of PyPI as of a date (the seed's "mirror of the dependency index at patch creation time"):
 * a local PEP 503 simple index whose project pages list only the files uploaded up to that date. pip 23, the
 * environments' pip, has no option for this; uv has `--exclude-newer`. The upload times come from PyPI's own JSON
 * simple API (PEP 691/700); the files themselves are downloaded from where PyPI keeps them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvproofError } from '../../core/errors.js';
import { PIP_REGISTRY } from './pip.js';
import { registryUrl } from '../registry.js';
import { escapeHtml } from '../../report/html-escape.js';

interface SimpleFile {
  filename: string;
  url: string;
  hashes?: Record<string, string>;
  'requires-python'?: string | null;
  'upload-time'?: string;
  yanked?: boolean | string;
}

export interface DatedIndex {
  /** The index URL for pip (PIP_INDEX_URL), on the loopback interface. */
  url: string;
  asOf: string;
  close(): Promise<void>;
}

/** The simple page of one project, keeping only files uploaded by `asOf`; null when upload times are missing. */
export function datedPage(project: string, files: readonly SimpleFile[], asOf: Date): string | null {
  if (files.some((f) => !f['upload-time'])) return null;
  const links = files
    .filter((f) => new Date(f['upload-time']!).getTime() <= asOf.getTime())
    .map((f) => {
      const sha = f.hashes?.sha256 ? `#sha256=${f.hashes.sha256}` : '';
      const rp = f['requires-python'] ? ` data-requires-python="${escapeHtml(f['requires-python'])}"` : '';
      const yanked = f.yanked ? ` data-yanked="${escapeHtml(typeof f.yanked === 'string' ? f.yanked : '')}"` : '';
      return `<a href="${escapeHtml(f.url)}${sha}"${rp}${yanked}>${escapeHtml(f.filename)}</a><br/>`;
    });
  return `<!DOCTYPE html><html><body><h1>Links for ${escapeHtml(project)}</h1>\n${links.join('\n')}\n</body></html>\n`;
}

async function upstreamFiles(upstream: string, project: string): Promise<{ status: number; files?: SimpleFile[] }> {
  const res = await fetch(`${upstream.replace(/\/?$/, '/')}${encodeURIComponent(project)}/`, { headers: { Accept: 'application/vnd.pypi.simple.v1+json' } });
  if (!res.ok) return { status: res.status };
  if (!(res.headers.get('content-type') ?? '').includes('json')) return { status: 502 };
  return { status: 200, files: ((await res.json()) as { files?: SimpleFile[] }).files ?? [] };
}

/** Starts the dated index on 127.0.0.1 (a free port); `upstream` must speak PyPI's JSON simple API. */
export async function startDatedIndex(asOf: Date, upstream = registryUrl(PIP_REGISTRY)): Promise<DatedIndex> {
  const pages = new Map<string, Promise<{ status: number; body: string }>>();
  const page = (project: string) => {
    let p = pages.get(project);
    if (!p) {
      p = upstreamFiles(upstream, project).then(
        ({ status, files }) => {
          if (!files) return { status, body: `upstream answered ${status}\n` };
          const html = datedPage(project, files, asOf);
          return html === null ? { status: 502, body: `${upstream} gives no upload times, so it cannot be read as of a date\n` } : { status: 200, body: html };
        },
        (err: unknown) => ({ status: 502, body: `${String(err)}\n` }),
      );
      pages.set(project, p);
    }
    return p;
  };
  const server = http.createServer((req, res) => {
    const m = /^\/simple\/([^/]+)\/?$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    void page(decodeURIComponent(m[1]!)).then(({ status, body }) => {
      res.writeHead(status, { 'Content-Type': status === 200 ? 'text/html; charset=utf-8' : 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new EnvproofError(`cannot start the dated package index: ${err.message}`)));
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/simple/`,
    asOf: asOf.toISOString(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
