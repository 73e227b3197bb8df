import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isFile } from '../../core/fs.js';
import { pep503 } from '../../core/names.js';
import { OutsideProjectError, readProjectFileIfExists } from '../../core/safe-read.js';
import type { Dependency } from '../../core/types.js';

export interface Distribution {
  name: string;
  version?: string;
}

/** Exact map from an installed file (path as seen inside the sandbox) to the distribution that installed it. */
export type FileOwnerIndex = Map<string, Distribution>;

/** The first field of a RECORD line (CSV; a path may be quoted when it holds a comma). */
export function recordPath(line: string): string | undefined {
  if (!line) return undefined;
  if (line.startsWith('"')) {
    let out = '';
    for (let i = 1; i < line.length; i++) {
      const c = line[i];
      if (c === '"') {
        if (line[i + 1] === '"') {
          out += '"';
          i++;
        } else return out;
      } else out += c;
    }
    return out;
  }
  const comma = line.indexOf(',');
  return comma < 0 ? line : line.slice(0, comma);
}

/**
 * A metadata file of an installed distribution. The install ran the project's code (setup.py, build backends), so a
 * link out of the site-packages directory is treated as no file at all rather than followed as root.
 */
function readMetadataFile(hostSite: string, file: string): Promise<string | undefined> {
  return readProjectFileIfExists(hostSite, file).catch((err: unknown) => {
    if (err instanceof OutsideProjectError) return undefined;
    throw err;
  });
}

function metadataField(metadata: string, field: string): string | undefined {
  const m = new RegExp(`^${field}:\\s*(.+)$`, 'mi').exec(metadata);
  return m?.[1]?.trim();
}

/**
 * Every distribution installed in the given site-packages directories, from their metadata: each `*.dist-info`
 * (METADATA) and `*.egg-info` (a directory with PKG-INFO, or a PKG-INFO file itself). Unlike `pip list`, which
 * leaves out a few names on purpose (argparse, wsgiref), this is everything the environment holds.
 */
export async function installedDistributions(sitePackages: readonly string[], toHost: (p: string) => string | null): Promise<Dependency[]> {
  const found: Dependency[] = [];
  for (const site of new Set(sitePackages)) {
    const hostSite = toHost(site);
    if (!hostSite) continue;
    for (const entry of (await readdir(hostSite).catch(() => [] as string[])).sort()) {
      const isDistInfo = entry.endsWith('.dist-info');
      if (!isDistInfo && !entry.endsWith('.egg-info')) continue;
      const meta = path.join(hostSite, entry);
      const metadataFile = isDistInfo ? path.join(meta, 'METADATA') : (await isFile(meta)) ? meta : path.join(meta, 'PKG-INFO');
      const metadata = (await readMetadataFile(hostSite, metadataFile)) ?? '';
      const rawName = metadataField(metadata, 'Name') ?? entry.replace(/-[^-]*\.(dist|egg)-info$/, '');
      const version = metadataField(metadata, 'Version');
      found.push({ name: pep503(rawName), ...(version ? { version } : {}), id: rawName, source: path.posix.join(site, entry) });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Builds the index from every `*.dist-info/RECORD` (and legacy `*.egg-info/installed-files.txt`) under the
 * given site-packages directories. `toHost` maps an inside path to where envproof can read it.
 */
export async function buildFileOwnerIndex(sitePackages: readonly string[], toHost: (p: string) => string | null): Promise<FileOwnerIndex> {
  const index: FileOwnerIndex = new Map();
  for (const site of new Set(sitePackages)) {
    const hostSite = toHost(site);
    if (!hostSite) continue;
    let entries: string[];
    try {
      entries = await readdir(hostSite);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const isDistInfo = entry.endsWith('.dist-info');
      if (!isDistInfo && !entry.endsWith('.egg-info')) continue;
      const metaDir = path.join(hostSite, entry);
      const metadata = (await readMetadataFile(hostSite, path.join(metaDir, isDistInfo ? 'METADATA' : 'PKG-INFO'))) ?? '';
      const rawName = metadataField(metadata, 'Name') ?? entry.replace(/-[^-]*\.(dist|egg)-info$/, '');
      const dist: Distribution = { name: pep503(rawName), version: metadataField(metadata, 'Version') };
      const listing = await readMetadataFile(hostSite, path.join(metaDir, isDistInfo ? 'RECORD' : 'installed-files.txt'));
      if (!listing) continue;
      const base = isDistInfo ? site : path.posix.join(site, entry);
      for (const line of listing.split('\n')) {
        const rel = recordPath(line.trim());
        if (rel) index.set(path.posix.normalize(path.posix.join(base, rel)), dist);
      }
    }
  }
  return index;
}

/** `pkg/__pycache__/mod.cpython-311.pyc` → `pkg/mod.py`, so bytecode written after install still maps to its source. */
export function sourceOfBytecode(file: string): string | undefined {
  const m = /^(.*)\/__pycache__\/([^/]+?)\.[^./]+(?:\.opt-\d)?\.pyc$/.exec(file);
  return m ? `${m[1]}/${m[2]}.py` : undefined;
}

/**
 * Names of distributions installed from the given local directory (PEP 610 direct_url.json), i.e. the
 * project itself after `pip install .`: it is not one of its own dependencies.
 */
export async function distributionsFromDirectory(sitePackages: readonly string[], directory: string, toHost: (p: string) => string | null): Promise<Set<string>> {
  const names = new Set<string>();
  const wanted = `file://${directory.replace(/\/$/, '')}`;
  for (const site of new Set(sitePackages)) {
    const hostSite = toHost(site);
    if (!hostSite) continue;
    for (const entry of await readdir(hostSite).catch(() => [] as string[])) {
      if (!entry.endsWith('.dist-info')) continue;
      const direct = await readMetadataFile(hostSite, path.join(hostSite, entry, 'direct_url.json'));
      if (!direct) continue;
      try {
        if ((JSON.parse(direct) as { url?: string }).url?.replace(/\/$/, '') !== wanted) continue;
      } catch {
        continue;
      }
      const metadata = (await readMetadataFile(hostSite, path.join(hostSite, entry, 'METADATA'))) ?? '';
      names.add(pep503(metadataField(metadata, 'Name') ?? entry.replace(/-[^-]*\.dist-info$/, '')));
    }
  }
  return names;
}
