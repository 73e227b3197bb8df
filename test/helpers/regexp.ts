import { tmpdir } from 'node:os';

/** `text` as a regular expression that matches it literally. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The temporary directory the tests run with (the runner's tmpfs, or /tmp), as a regular-expression source. */
export const TMP = literal(tmpdir());
