/**
 * What of a command's Maven local-repository layer reaches the shared `m2` cache: artifacts (and their
 * checksum files) whose SHA-1 Maven Central itself states, and Central's metadata files when they are the same
 * as Central's. Anything from another repository, Maven's bookkeeping of failed lookups, and every file envproof
 * cannot confirm stays in the run's private layer.
 */
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CachePublisher, PublishCount } from '../../sandbox/cache-layers.js';
import { fetchBody, fileDigest, forEachLimited, layerFiles, publishFile } from '../../sandbox/cache-files.js';

export const MAVEN_CENTRAL = 'https://repo.maven.apache.org/maven2';

/** Checksum files beside an artifact, by the digest they hold. */
const CHECKSUMS: Record<string, string> = { '.sha1': 'sha1', '.md5': 'md5', '.sha256': 'sha256', '.sha512': 'sha512' };
/** Maven's own records (which repository, failed lookups, resolver state) and partial downloads. */
const BOOKKEEPING = /(^|\/)(_remote\.repositories|resolver-status\.properties|[^/]*\.lastUpdated|[^/]*\.part|\.[^/]*)$/;
const CENTRAL_METADATA = /(^|\/)maven-metadata-central\.xml$/;

/** The SHA-1 Central states for `rel` (its `.sha1` file may carry a file name after the digest). */
async function centralSha1(rel: string): Promise<string | null> {
  const body = await fetchBody(`${MAVEN_CENTRAL}/${rel}.sha1`);
  return /^\s*([0-9a-f]{40})\b/i.exec(body ?? '')?.[1]?.toLowerCase() ?? null;
}

/** Adds `files` (names in one version directory) to that directory's `_remote.repositories` as Central's. */
async function recordOrigin(shared: string, dir: string, files: string[]): Promise<void> {
  const target = path.join(shared, dir, '_remote.repositories');
  const present = await readFile(target, 'utf8').catch(() => null);
  const lines = files.map((f) => `${f}>central=`).filter((l) => !(present ?? '').split('\n').includes(l));
  if (lines.length === 0) return;
  if (present === null) await publishFile(shared, path.join(dir, '_remote.repositories'), { data: `${lines.join('\n')}\n` });
  else await appendFile(target, `${present.endsWith('\n') ? '' : '\n'}${lines.join('\n')}\n`);
}

export const javaCachePublisher: CachePublisher = {
  dir: 'm2',
  async publish(layer, shared): Promise<PublishCount> {
    const files = await layerFiles(layer);
    const count: PublishCount = { published: 0, rejected: 0 };
    const verified = new Map<string, string>(); // artifact file → its sha1
    const mains = files.filter((f) => !BOOKKEEPING.test(f) && !Object.keys(CHECKSUMS).some((ext) => f.endsWith(ext)));
    await forEachLimited(mains, 8, async (rel) => {
      const remoteRel = CENTRAL_METADATA.test(rel) ? rel.replace(/maven-metadata-central\.xml$/, 'maven-metadata.xml') : rel;
      const [local, remote] = await Promise.all([fileDigest(path.join(layer, rel), 'sha1'), centralSha1(remoteRel)]);
      if (remote !== null && remote === local) verified.set(rel, local);
    });
    const byDir = new Map<string, string[]>();
    for (const rel of files) {
      const main = Object.keys(CHECKSUMS).find((ext) => rel.endsWith(ext));
      const source = main ? rel.slice(0, -main.length) : rel;
      let ok = verified.has(source);
      // A checksum file is published only when it holds the digest of the verified file it belongs to.
      if (ok && main) ok = (await readFile(path.join(layer, rel), 'utf8')).trim().split(/\s/)[0]?.toLowerCase() === (await fileDigest(path.join(layer, source), CHECKSUMS[main]!));
      if (!ok) {
        count.rejected++;
        continue;
      }
      if (await publishFile(shared, rel, { source: path.join(layer, rel) })) count.published++;
      if (!main && !CENTRAL_METADATA.test(rel)) byDir.set(path.dirname(rel), [...(byDir.get(path.dirname(rel)) ?? []), path.basename(rel)]);
    }
    for (const [dir, names] of byDir) await recordOrigin(shared, dir, names);
    return count;
  },
};
