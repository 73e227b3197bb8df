/**
 * Archives an environment recipe pins by content (an npm registry tarball and its `dist.integrity`), downloaded
 * once into the cache's `downloads/` and checked against the pinned hash on every use, so that a rebuilt
 * environment needs no network and a corrupted or substituted file is never unpacked.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from '../core/cache.js';
import { EnvproofError } from '../core/errors.js';
import { fileDigest } from './cache-files.js';
import { withDirLock } from './lock.js';

export interface PinnedDownload {
  url: string;
  /** Subresource-integrity form, as the npm registry states it: `sha512-<base64>`. */
  integrity: string;
  /** File name under the download cache. */
  fileName: string;
  /** What it is, for messages: "Node.js 20.20.2". */
  what: string;
  /** How to fix a download that cannot be had. */
  hint: string;
}

export function downloadsDir(): string {
  return path.join(cacheRoot(), 'downloads');
}

function parseIntegrity(integrity: string): { algorithm: string; digest: string } {
  const m = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+=*)$/.exec(integrity);
  if (!m) throw new EnvproofError(`not a subresource-integrity hash: ${integrity}`);
  return { algorithm: m[1]!, digest: m[2]! };
}

/** Whether `file` has the content `integrity` names. */
export async function matchesIntegrity(file: string, integrity: string): Promise<boolean> {
  const { algorithm, digest } = parseIntegrity(integrity);
  return (await fileDigest(file, algorithm, 'base64')) === digest;
}

/** Host path of the verified file, downloaded first when the cache does not hold it (or holds something else). */
export async function pinnedDownload(d: PinnedDownload, progress: (message: string) => void): Promise<string> {
  const dir = downloadsDir();
  const file = path.join(dir, d.fileName);
  if (existsSync(file) && (await matchesIntegrity(file, d.integrity))) return file;
  await mkdir(dir, { recursive: true });
  return withDirLock(`${file}.lock`, (pid) => progress(`waiting for another envproof process (pid ${pid}) downloading ${d.what}`), async () => {
    if (existsSync(file) && (await matchesIntegrity(file, d.integrity))) return file;
    progress(`downloading ${d.what} from ${d.url}`);
    const part = `${file}.part`;
    try {
      const res = await fetch(d.url, { signal: AbortSignal.timeout(10 * 60_000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      await writeFile(part, Buffer.from(await res.arrayBuffer()));
    } catch (err) {
      await rm(part, { force: true });
      throw new EnvproofError(`cannot download ${d.what} from ${d.url}: ${(err as Error).message}`, d.hint);
    }
    if (!(await matchesIntegrity(part, d.integrity))) {
      await rm(part, { force: true });
      throw new EnvproofError(`${d.what} from ${d.url} does not match its pinned integrity ${d.integrity}`, 'the registry served something else; try again, or point envproof at another mirror');
    }
    await rename(part, file);
    return file;
  });
}
