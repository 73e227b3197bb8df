import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export const FALLBACK_MIRROR = 'http://deb.debian.org/debian';

/** One `deb` source of apt's configuration, from either the one-line or the deb822 format. */
export interface AptSource {
  uri: string;
  suites: string[];
}

/** Parses a sources file; `deb822` says whether it is a `.sources` file. Comments and `deb-src` are ignored. */
export function parseAptSources(text: string, deb822: boolean): AptSource[] {
  if (!deb822) {
    return text
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter((l) => l.startsWith('deb '))
      .map((l) => l.replace(/\[[^\]]*\]/, '').split(/\s+/))
      .map(([, uri, suite]) => ({ uri: uri ?? '', suites: suite ? [suite] : [] }))
      .filter((s) => s.uri !== '');
  }
  const sources: AptSource[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of stanza.split('\n')) {
      const m = /^([A-Za-z-]+):\s*(.*)$/.exec(line.trim());
      if (m && !line.trimStart().startsWith('#')) fields.set(m[1]!.toLowerCase(), m[2]!);
    }
    if (!(fields.get('types') ?? '').split(/\s+/).includes('deb')) continue;
    const suites = (fields.get('suites') ?? '').split(/\s+/).filter(Boolean);
    for (const uri of (fields.get('uris') ?? '').split(/\s+/).filter(Boolean)) sources.push({ uri, suites });
  }
  return sources;
}

/** The source that serves `suite` itself (not -updates or -security), i.e. a Debian archive mirror. */
export function pickDebianMirror(sources: readonly AptSource[], suite: string): string | undefined {
  return sources.find((s) => s.suites.includes(suite))?.uri.replace(/\/+$/, '');
}

/** The Debian mirror this machine's apt uses for `suite`, so debootstrap reaches the same archive. */
export async function hostDebianMirror(suite: string, aptDir = '/etc/apt'): Promise<string> {
  const files: { file: string; deb822: boolean }[] = [{ file: path.join(aptDir, 'sources.list'), deb822: false }];
  const partsDir = path.join(aptDir, 'sources.list.d');
  const parts = await readdir(partsDir).catch(() => [] as string[]);
  for (const f of parts.sort()) {
    if (f.endsWith('.list')) files.push({ file: path.join(partsDir, f), deb822: false });
    if (f.endsWith('.sources')) files.push({ file: path.join(partsDir, f), deb822: true });
  }
  const sources: AptSource[] = [];
  for (const { file, deb822 } of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    sources.push(...parseAptSources(text, deb822));
  }
  return pickDebianMirror(sources, suite) ?? FALLBACK_MIRROR;
}
