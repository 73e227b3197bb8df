/**
 * The streaming strace log parser: turns `strace -f -y` output, one line at a time, into the set of files
 * the traced processes opened or executed successfully, as absolute, lexically normalised paths.
 *
 * Each process's working directory is tracked: the root starts in the given directory, a child inherits
 * its parent's at fork (and shares it when cloned with CLONE_FS, as threads are), chdir/fchdir change it.
 * A child's first lines can precede the parent's `clone(...) = <child>` line in the log, so lines of a pid
 * not yet known to be anyone's child wait until that line arrives.
 */
import { EnvproofError, UsageError, errorMessage } from '../core/errors.js';
import { forEachLine } from './lines.js';
import { normalizeAbsolute, resolveAgainst } from './paths.js';
import { bytesToText, detach, DirfdToken, findArgsEnd, readDirfd, readQuoted, readReturnValue, splitPid, textToBytes } from './syntax.js';

/** Why a line's information could not be used; such lines are counted and sampled, never thrown. */
export type TraceSkipReason =
  /** The line does not have the shape strace prints. */
  | 'malformed-line'
  /** A relative path whose directory is unknown (a dirfd strace did not annotate, an unknown cwd). */
  | 'unknown-directory'
  /** `<... resumed>` without the matching `<unfinished ...>`. */
  | 'unmatched-resumed';

export interface SkippedLine {
  /** 1-based line number in the log. */
  line: number;
  reason: TraceSkipReason;
  text: string;
}

export type ProcessEnd = { kind: 'exited'; code: number } | { kind: 'killed'; signal: string; coreDumped: boolean };

export interface ParsedTrace {
  /** Files opened or executed successfully: absolute, `.`/`..` resolved lexically, symlinks not resolved. */
  files: Set<string>;
  /** Successfully executed programs, in log order. */
  execs: string[];
  lines: number;
  /** The first process in the log, the one strace started; null for an empty log. */
  rootPid: number | null;
  /** How the root process ended, when the log says so. */
  rootEnd: ProcessEnd | null;
  /** The first MAX_SKIPPED_SAMPLES skipped lines. */
  skipped: SkippedLine[];
  skippedTotal: number;
}

const MAX_SKIPPED_SAMPLES = 1000;
/** Stands for the root when strace ran without -f and printed no pids. */
const NO_PID = 0;
const UNFINISHED = ' <unfinished ...>';
const RESUMED = ' resumed>';

/** The working directory of one process, shared by processes cloned with CLONE_FS. */
interface FsContext {
  /** null when unknown (a process whose parent never appeared in the log). */
  cwd: string | null;
}

interface WaitingLine {
  lineNo: number;
  text: string;
  start: number;
}

export class StraceLogParser {
  private readonly files = new Set<string>();
  private readonly execs: string[] = [];
  private readonly skipped: SkippedLine[] = [];
  private skippedTotal = 0;
  private lines = 0;
  private rootPid: number | null = null;
  private rootEnd: ProcessEnd | null = null;
  private readonly fsOf = new Map<number, FsContext>();
  /** Text of each pid's call that strace printed as `<unfinished ...>`, up to that marker. */
  private readonly unfinished = new Map<number, string>();
  private readonly waiting = new Map<number, WaitingLine[]>();

  /** Paths are kept as byte strings while parsing (see syntax.ts) and decoded once each in `finish`. */
  private readonly initialCwd: string;

  constructor(initialCwd: string) {
    this.initialCwd = textToBytes(initialCwd);
  }

  /** Feeds one line (without its newline). */
  push(line: string): void {
    const lineNo = ++this.lines;
    if (line.length === 0) return;
    const split = splitPid(line);
    const pid = split.pid ?? NO_PID;
    if (!this.fsOf.has(pid)) {
      if (this.rootPid === null) {
        this.rootPid = pid;
        this.fsOf.set(pid, { cwd: this.initialCwd });
      } else {
        let queue = this.waiting.get(pid);
        if (!queue) this.waiting.set(pid, (queue = []));
        queue.push({ lineNo, text: line, start: split.body });
        return;
      }
    }
    this.body(pid, line, split.body, lineNo);
  }

  /** Ends the log: processes whose parent never appeared are read with an unknown working directory. */
  finish(): ParsedTrace {
    for (let next = this.waiting.keys().next(); !next.done; next = this.waiting.keys().next()) {
      this.adopt(next.value, { cwd: null });
    }
    return {
      files: new Set([...this.files].map(bytesToText)),
      execs: this.execs.map(bytesToText),
      lines: this.lines,
      rootPid: this.rootPid,
      rootEnd: this.rootEnd,
      skipped: this.skipped,
      skippedTotal: this.skippedTotal,
    };
  }

  private body(pid: number, line: string, start: number, lineNo: number): void {
    if (line.startsWith('+++ ', start)) return this.processEnd(pid, line.slice(start + 4), lineNo);
    if (line.startsWith('--- ', start)) return; // a signal delivery: nothing to record
    if (line.startsWith('<... ', start)) {
      const marker = line.indexOf(RESUMED, start);
      const head = this.unfinished.get(pid);
      if (marker === -1 || head === undefined) return this.skip(lineNo, 'unmatched-resumed', line);
      this.unfinished.delete(pid);
      return this.call(pid, head + line.slice(marker + RESUMED.length), 0, lineNo);
    }
    if (line.endsWith(UNFINISHED)) {
      this.unfinished.set(pid, line.slice(start, line.length - UNFINISHED.length));
      return;
    }
    this.call(pid, line, start, lineNo);
  }

  private processEnd(pid: number, text: string, lineNo: number): void {
    const exited = /^exited with (\d+) \+\+\+/.exec(text);
    const killed = /^killed by (SIG[A-Z0-9_+-]+)( \(core dumped\))? \+\+\+/.exec(text);
    const superseded = /^superseded by execve in pid (\d+) \+\+\+/.exec(text);
    if (superseded) {
      // A non-leader thread called execve; it continues as `pid`, and its pending execve with it.
      const thread = Number(superseded[1]);
      const head = this.unfinished.get(thread);
      if (head !== undefined) this.unfinished.set(pid, head);
      this.unfinished.delete(thread);
      this.fsOf.delete(thread);
      return;
    }
    const end: ProcessEnd | null = exited
      ? { kind: 'exited', code: Number(exited[1]) }
      : killed
        ? { kind: 'killed', signal: killed[1]!, coreDumped: killed[2] !== undefined }
        : null;
    if (!end) return this.skip(lineNo, 'malformed-line', text);
    if (pid === this.rootPid) this.rootEnd = end;
    // The pid may be reused: its next lines wait for the fork that creates the new process.
    this.fsOf.delete(pid);
    this.unfinished.delete(pid);
  }

  private call(pid: number, line: string, start: number, lineNo: number): void {
    if (line.startsWith('openat(', start)) return this.atCall(pid, line, start + 7, lineNo, 'open'); // most lines
    const open = line.indexOf('(', start);
    if (open === -1) return this.skip(lineNo, 'malformed-line', line);
    const args = open + 1;
    switch (line.slice(start, open)) {
      case 'open':
        return this.pathCall(pid, line, null, args, lineNo, 'open');
      case 'execve':
        return this.pathCall(pid, line, null, args, lineNo, 'exec');
      case 'chdir':
        return this.pathCall(pid, line, null, args, lineNo, 'chdir');
      case 'openat2':
        return this.atCall(pid, line, args, lineNo, 'open');
      case 'execveat':
        return this.atCall(pid, line, args, lineNo, 'exec');
      case 'fchdir':
        return this.fchdir(pid, line, args, lineNo);
      case 'fork':
      case 'vfork':
      case 'clone':
      case 'clone3':
        return this.fork(pid, line, args, lineNo);
      default:
        return; // not a call the tracer asked for
    }
  }

  /** A call whose first arguments are a directory fd and a path relative to it. */
  private atCall(pid: number, line: string, args: number, lineNo: number, effect: 'open' | 'exec'): void {
    const dirfd = readDirfd(line, args);
    if (!dirfd || line.charCodeAt(dirfd.end) !== 44 /* , */) return this.skip(lineNo, 'malformed-line', line);
    this.pathCall(pid, line, dirfd, dirfd.end + 2, lineNo, effect);
  }

  private pathCall(
    pid: number,
    line: string,
    dirfd: DirfdToken | null,
    pathAt: number,
    lineNo: number,
    effect: 'open' | 'exec' | 'chdir',
  ): void {
    const quoted = readQuoted(line, pathAt);
    const rest = quoted ? quoted.end : pathAt;
    // Only exec calls have strings (argv) after the path; the other arguments are flags, modes and numbers.
    const close = effect === 'exec' ? findArgsEnd(line, rest) : line.indexOf(')', rest);
    if (close === -1) return this.skip(lineNo, 'malformed-line', line);
    if (Number.isNaN(readReturnValue(line, close))) return; // failed calls open nothing
    if (!quoted) return this.skip(lineNo, 'malformed-line', line);
    const fs = this.fsOf.get(pid)!;
    let target: string | null;
    if (quoted.value.startsWith('/')) target = normalizeAbsolute(quoted.value);
    else if (quoted.value === '' && dirfd?.path && line.includes('AT_EMPTY_PATH', quoted.end)) target = dirfd.path;
    else {
      const base = this.directoryOf(fs, dirfd);
      target = base === null ? null : resolveAgainst(base, quoted.value);
    }
    if (target === null) return this.skip(lineNo, 'unknown-directory', line);
    if (effect === 'chdir') {
      fs.cwd = detach(target);
      return;
    }
    if (!this.files.has(target)) this.files.add(detach(target));
    if (effect === 'exec') this.execs.push(detach(target));
  }

  /** The directory a relative path argument is relative to. */
  private directoryOf(fs: FsContext, dirfd: DirfdToken | null): string | null {
    if (dirfd && !dirfd.atCwd) return dirfd.path;
    // The tracked cwd keeps the path the program used; strace's AT_FDCWD annotation has symlinks resolved.
    if (fs.cwd === null && dirfd?.path) fs.cwd = detach(dirfd.path);
    return fs.cwd;
  }

  private fchdir(pid: number, line: string, args: number, lineNo: number): void {
    const dirfd = readDirfd(line, args);
    const close = dirfd ? line.indexOf(')', dirfd.end) : -1;
    if (!dirfd || close === -1) return this.skip(lineNo, 'malformed-line', line);
    if (Number.isNaN(readReturnValue(line, close))) return;
    if (dirfd.path === null) {
      this.fsOf.get(pid)!.cwd = null;
      return this.skip(lineNo, 'unknown-directory', line);
    }
    this.fsOf.get(pid)!.cwd = detach(dirfd.path);
  }

  private fork(pid: number, line: string, args: number, lineNo: number): void {
    const close = line.indexOf(')', args); // clone's arguments hold no strings
    if (close === -1) return this.skip(lineNo, 'malformed-line', line);
    const child = readReturnValue(line, close);
    if (Number.isNaN(child)) return;
    const parent = this.fsOf.get(pid)!;
    const flags = line.indexOf('CLONE_FS', args);
    this.adopt(child, flags !== -1 && flags < close ? parent : { cwd: parent.cwd });
  }

  /** Starts tracking `child` and replays the lines it printed before its parent's fork returned. */
  private adopt(child: number, fs: FsContext): void {
    this.fsOf.set(child, fs);
    const queue = this.waiting.get(child);
    if (!queue) return;
    this.waiting.delete(child);
    for (const w of queue) {
      if (!this.fsOf.has(child)) {
        // The child exited and its pid was reused by a process whose fork is yet to come.
        this.waiting.set(child, queue.slice(queue.indexOf(w)));
        return;
      }
      this.body(child, w.text, w.start, w.lineNo);
    }
  }

  private skip(lineNo: number, reason: TraceSkipReason, text: string): void {
    this.skippedTotal++;
    if (this.skipped.length < MAX_SKIPPED_SAMPLES) this.skipped.push({ line: lineNo, reason, text: bytesToText(detach(text)) });
  }
}

/** Parses a whole strace log file; `initialCwd` is the working directory the traced program started in. */
export async function parseStraceLog(logFile: string, initialCwd: string): Promise<ParsedTrace> {
  if (!initialCwd.startsWith('/')) {
    throw new UsageError(`the initial working directory must be absolute, got "${initialCwd}"`);
  }
  const parser = new StraceLogParser(normalizeAbsolute(initialCwd));
  try {
    await forEachLine(logFile, (line) => parser.push(line));
  } catch (err) {
    throw new EnvproofError(`cannot read the strace log ${logFile}: ${errorMessage(err)}`, 'check that the path names an existing, readable file');
  }
  return parser.finish();
}
