/** Lexical path arithmetic on absolute POSIX paths, as the traced program saw them (no file-system access). */

/** Whether `p` may contain `.`/`..` segments, repeated or trailing slashes; false means it is already normal. */
function mayNeedNormalising(p: string): boolean {
  return p.includes('/.') || p.includes('//') || (p.length > 1 && p.endsWith('/'));
}

/** Removes `.`, `..` (never above `/`), repeated and trailing slashes from an absolute path. */
export function normalizeAbsolute(p: string): string {
  if (!mayNeedNormalising(p)) return p;
  const out: string[] = [];
  for (const segment of p.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return '/' + out.join('/');
}

/** `p` resolved against the absolute directory `base` (ignored when `p` is absolute), then normalised. */
export function resolveAgainst(base: string, p: string): string {
  if (p.startsWith('/')) return normalizeAbsolute(p);
  if (p === '' || p === '.') return normalizeAbsolute(base);
  return normalizeAbsolute(base === '/' ? '/' + p : base + '/' + p);
}

export function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}
