import { createReadStream } from 'node:fs';

/**
 * Calls `onLine` for every line of a file, without its newline, reading in large chunks. The text is
 * decoded as latin1 so that each character is one byte: strace escapes everything outside printable
 * ASCII, and the parser turns decoded strings back into UTF-8 itself.
 */
export async function forEachLine(file: string, onLine: (line: string) => void): Promise<void> {
  let rest = '';
  for await (const chunk of createReadStream(file, { encoding: 'latin1', highWaterMark: 1 << 20 })) {
    const text: string = rest + (chunk as string);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      onLine(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest.length > 0) onLine(rest);
}
