// tier: quick
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { downloadsDir, pinnedDownload, type PinnedDownload } from '../../src/sandbox/downloads.js';

const BODY = Buffer.from('a registry tarball, as far as this test is concerned\n');
// Computed here from the bytes served, the way the npm registry states dist.integrity.
const INTEGRITY = `sha512-${createHash('sha512').update(BODY).digest('base64')}`;

describe('pinned downloads: fetched once, checked against their integrity every time', () => {
  let server: Server;
  let base: string;
  let requests = 0;
  let cache: string;
  const saved = process.env.ENVPROOF_CACHE_DIR;

  before(async () => {
    cache = mkdtempSync(path.join(os.tmpdir(), 'envproof-downloads-'));
    process.env.ENVPROOF_CACHE_DIR = cache;
    server = createServer((req, res) => {
      requests++;
      if (req.url === '/missing.tgz') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(BODY);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    if (saved === undefined) delete process.env.ENVPROOF_CACHE_DIR;
    else process.env.ENVPROOF_CACHE_DIR = saved;
    rmSync(cache, { recursive: true, force: true });
  });

  const pinned = (fileName: string, over: Partial<PinnedDownload> = {}): PinnedDownload => ({
    url: `${base}/${fileName}`,
    integrity: INTEGRITY,
    fileName,
    what: `test ${fileName}`,
    hint: 'check the test server',
    ...over,
  });

  it('downloads into the cache, then serves the cached file without a request', async () => {
    const requestsBefore = requests;
    const file = await pinnedDownload(pinned('pkg-1.0.0.tgz'), () => {});
    assert.equal(file, path.join(downloadsDir(), 'pkg-1.0.0.tgz'));
    assert.deepEqual(readFileSync(file), BODY);
    assert.equal(await pinnedDownload(pinned('pkg-1.0.0.tgz'), () => {}), file);
    assert.equal(requests - requestsBefore, 1, 'one request for two uses');
  });

  it('a cached file that no longer matches is downloaded again', async () => {
    const file = path.join(downloadsDir(), 'pkg-1.0.0.tgz');
    writeFileSync(file, 'corrupted');
    const requestsBefore = requests;
    await pinnedDownload(pinned('pkg-1.0.0.tgz'), () => {});
    assert.equal(requests - requestsBefore, 1);
    assert.deepEqual(readFileSync(file), BODY);
  });

  it('refuses what does not match the pinned integrity, and keeps nothing of it', async () => {
    const other = `sha512-${createHash('sha512').update('something else').digest('base64')}`;
    await assert.rejects(pinnedDownload(pinned('evil-1.0.0.tgz', { integrity: other }), () => {}), /does not match its pinned integrity/);
    assert.equal(existsSync(path.join(downloadsDir(), 'evil-1.0.0.tgz')), false);
    assert.equal(existsSync(path.join(downloadsDir(), 'evil-1.0.0.tgz.part')), false);
  });

  it('a download that cannot be had says where from, with the hint', async () => {
    await assert.rejects(pinnedDownload(pinned('missing.tgz'), () => {}), (err: Error & { hint?: string }) => {
      assert.match(err.message, /cannot download test missing\.tgz from http:\/\/127\.0\.0\.1:\d+\/missing\.tgz: HTTP 404/);
      assert.equal(err.hint, 'check the test server');
      return true;
    });
  });
});
