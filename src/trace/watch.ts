/**
 * Watches the strace log while the program runs, for the line that says the root process ended.
 * `strace -f` keeps running until every traced process has exited, so a background child left behind
 * would otherwise hold the run open until its time limit, where the untraced program would have ended.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { splitPid } from './syntax.js';

const POLL_MS = 100;
const READ_BYTES = 1 << 20;

/** The pid of the line in `text` that executed the gate, if there is one. */
function gatePid(text: string, gateMark: string): number | null {
  const at = text.indexOf(gateMark);
  return at === -1 ? null : splitPid(text.slice(text.lastIndexOf('\n', at) + 1)).pid;
}

/**
 * Calls `onRootEnd` once, soon after the program's process has an `+++ exited`/`+++ killed` line: the log's
 * first process, or with a gate (see parse.ts) the one that executed it.
 */
export function watchRootEnd(logFile: string, onRootEnd: () => void, gate?: string): { stop(): void } {
  // The file name alone: strace escapes the rest of the path where it is not ASCII.
  const gateMark = gate === undefined ? null : `/${path.posix.basename(gate)}", [`;
  let fd: number | null = null;
  let offset = 0;
  let partial = '';
  let rootPid: number | null = null;
  const buffer = Buffer.alloc(READ_BYTES);

  /** Reads what strace appended since the last poll; true when the root's end is among it. */
  const rootEnded = (): boolean => {
    fd ??= openSync(logFile, 'r');
    for (let n = readSync(fd, buffer, 0, READ_BYTES, offset); n > 0; n = readSync(fd, buffer, 0, READ_BYTES, offset)) {
      offset += n;
      const text = partial + buffer.toString('latin1', 0, n);
      const lastNewline = text.lastIndexOf('\n');
      partial = text.slice(lastNewline + 1);
      if (rootPid === null && lastNewline > 0) rootPid = gateMark === null ? splitPid(text).pid : gatePid(text.slice(0, lastNewline), gateMark);
      for (let at = text.indexOf(' +++ '); at !== -1 && at < lastNewline; at = text.indexOf(' +++ ', at + 5)) {
        const line = text.slice(text.lastIndexOf('\n', at) + 1, text.indexOf('\n', at));
        const split = splitPid(line);
        if (split.pid === rootPid && /^\+\+\+ (exited|killed) /.test(line.slice(split.body))) return true;
      }
    }
    return false;
  };

  const timer = setInterval(() => {
    try {
      if (!rootEnded()) return;
    } catch {
      return; // strace has not created the log yet
    }
    stop();
    onRootEnd();
  }, POLL_MS);

  const stop = () => {
    clearInterval(timer);
    if (fd !== null) closeSync(fd);
    fd = null;
  };
  return { stop };
}
