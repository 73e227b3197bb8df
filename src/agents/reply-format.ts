/**
 * The file-writing reply protocol of the HTTP agents: the model answers with every file of the project in
 * blocks `<file path="relative/path">…</file>`; text outside the blocks is ignored.
 */
export const REPLY_FORMAT_INSTRUCTIONS = [
  'You write complete software projects. Answer with the full content of every file of the project, each in its own block:',
  '<file path="relative/path/to/file">',
  'file content',
  '</file>',
  'Paths are relative to the project root. Text outside the blocks is ignored. In a repair round, send every file that',
  'changes, complete; files you do not send stay as they are.',
].join('\n');

export interface ParsedReply {
  files: { path: string; content: string }[];
  /** Blocks that were opened but never closed. */
  unterminated: string[];
}

const OPEN = /<file\s+path\s*=\s*"([^"]*)"\s*>\n?/g;

export function parseFileBlocks(reply: string): ParsedReply {
  const files: { path: string; content: string }[] = [];
  const unterminated: string[] = [];
  OPEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = OPEN.exec(reply))) {
    const start = OPEN.lastIndex;
    const end = reply.indexOf('</file>', start);
    if (end < 0) {
      unterminated.push(m[1]!);
      break;
    }
    let content = reply.slice(start, end);
    if (content.endsWith('\n')) content = content.slice(0, -1);
    files.push({ path: m[1]!.trim(), content: `${content}\n` });
    OPEN.lastIndex = end + '</file>'.length;
  }
  return { files, unterminated };
}
