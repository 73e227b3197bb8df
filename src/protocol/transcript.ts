/** Bytes of each transcript field an attempt keeps (agent output, agent stderr, program output). */
export const TRANSCRIPT_BYTES = 64 * 1024;

/**
 * `text` within `max` bytes of UTF-8: its beginning (a quarter) and its end (the rest; errors are at the end), the
 * middle replaced by a line saying how much was left out. Null for no text.
 */
export function boundedTranscript(text: string | undefined, max = TRANSCRIPT_BYTES): string | null {
  if (!text) return null;
  const bytes = Buffer.from(text);
  if (bytes.length <= max) return text;
  const head = Math.floor(max / 4);
  const tail = max - head;
  const left = bytes.length - head - tail;
  // A cut inside a multi-byte character decodes to U+FFFD: harmless in a transcript.
  return `${bytes.subarray(0, head).toString()}\n[… ${left} bytes left out …]\n${bytes.subarray(bytes.length - tail).toString()}`;
}
