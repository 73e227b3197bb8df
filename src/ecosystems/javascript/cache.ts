/**
 * What of a command's npm cache layer reaches the shared npm cache: registry tarballs whose integrity the
 * registry itself states for that package version, with their cacache index entry. Packuments (which change
 * over time and could name any tarball), tarballs from elsewhere, logs and everything envproof cannot confirm
 * stay in the run's private layer; npm fetches packuments again, which is cheap.
 *
 * cacache's layout: `content-v2/<algorithm>/<hex digest split 2/2/rest>` holds content by its digest;
 * `index-v5/<sha256(key) split 2/2/rest>` buckets hold lines `<sha1(json)>\t<json>` with the entry's key,
 * integrity and metadata.
 */
import { createHash } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CachePublisher, PublishCount } from '../../sandbox/cache-layers.js';
import { fetchBody, fileDigest, forEachLimited, layerFiles, publishFile } from '../../sandbox/cache-files.js';

export const NPM_REGISTRY = 'https://registry.npmjs.org';
const KEY_PREFIX = 'make-fetch-happen:request-cache:';
const TARBALL = /^https:\/\/registry\.npmjs\.org\/((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)\/-\/([\w.-]+)\.tgz$/i;

interface IndexEntry {
  key: string;
  integrity: string;
  line: string;
}

const sha = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');

export function bucketPath(key: string): string {
  const h = sha('sha256', key);
  return path.join('_cacache', 'index-v5', h.slice(0, 2), h.slice(2, 4), h.slice(4));
}

export function contentPath(integrity: string): string | null {
  const m = /^(sha512)-([A-Za-z0-9+/=]+)$/.exec(integrity);
  if (!m) return null;
  const hex = Buffer.from(m[2]!, 'base64').toString('hex');
  return path.join('_cacache', 'content-v2', m[1]!, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

/** The well-formed entries of a bucket file (each line carries the SHA-1 of its JSON). */
function parseBucket(text: string): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 0 || sha('sha1', line.slice(tab + 1)) !== line.slice(0, tab)) continue;
    try {
      const json = JSON.parse(line.slice(tab + 1)) as { key?: unknown; integrity?: unknown };
      if (typeof json.key === 'string' && typeof json.integrity === 'string') out.push({ key: json.key, integrity: json.integrity, line });
    } catch {
      // not an entry
    }
  }
  return out;
}

/** The integrity the registry states for `name@version`'s tarball, or null. */
async function registryIntegrity(name: string, version: string): Promise<string | null> {
  const body = await fetchBody(`${NPM_REGISTRY}/${name.replace('/', '%2f')}/${encodeURIComponent(version)}`);
  try {
    const dist = (JSON.parse(body ?? '') as { dist?: { integrity?: string } }).dist;
    return dist?.integrity ?? null;
  } catch {
    return null;
  }
}

export const javascriptCachePublisher: CachePublisher = {
  dir: 'npm',
  async publish(layer, shared): Promise<PublishCount> {
    const files = await layerFiles(layer);
    const count: PublishCount = { published: 0, rejected: 0 };
    const entries: IndexEntry[] = [];
    for (const f of files.filter((f) => f.startsWith(`_cacache${path.sep}index-v5${path.sep}`))) {
      entries.push(...parseBucket(await readFile(path.join(layer, f), 'utf8')));
    }
    const verified: { entry: IndexEntry; content: string }[] = [];
    await forEachLimited(entries, 8, async (entry) => {
      const m = TARBALL.exec(entry.key.startsWith(KEY_PREFIX) ? entry.key.slice(KEY_PREFIX.length) : '');
      const content = contentPath(entry.integrity);
      const base = m?.[1]?.split('/').pop();
      if (!m || !content || !base || !m[2]!.startsWith(`${base}-`)) return;
      const digest = await fileDigest(path.join(layer, content), 'sha512', 'base64').catch(() => null);
      if (`sha512-${digest}` !== entry.integrity) return;
      if ((await registryIntegrity(m[1]!, m[2]!.slice(base.length + 1))) === entry.integrity) verified.push({ entry, content });
    });
    // Written one at a time: two entries may share a bucket.
    const published = new Set<string>();
    for (const { entry, content } of verified) {
      if (await publishFile(shared, content, { source: path.join(layer, content) })) count.published++;
      const bucket = bucketPath(entry.key);
      const present = await readFile(path.join(shared, bucket), 'utf8').catch(() => null);
      if (present === null) await publishFile(shared, bucket, { data: `\n${entry.line}` });
      else if (!parseBucket(present).some((p) => p.key === entry.key && p.integrity === entry.integrity)) await appendFile(path.join(shared, bucket), `\n${entry.line}`);
      published.add(content).add(bucket);
    }
    count.rejected = files.filter((f) => !published.has(f)).length;
    return count;
  },
};
