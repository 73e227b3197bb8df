/**
 * The streaming strace log parser: turns `strace -f -y` output, one line at a time, into the set of files
 * the traced processes opened or executed successfully, as absolute, lexically normalised paths.
 *
 * A child's first lines can precede the parent's `clone(...) = <child>` line in the log, so lines of a pid
 * not yet known to be anyone's child wait until that line arrives. With a gate (strace run outside the
 * sandbox, around the sandbox's own command), tracing starts at the exec of the gate: the lines before it,
 * and those of every process that is not its descendant, are the sandbox's machinery and are ignored.
 */
import { EnvproofError, UsageError, errorMessage } from '../core/errors.js';
import { forEachLine } from './lines.js';
import { normalizeAbsolute } from './paths.js';
import { absoluteTarget, FileRecorder, type PathEffect } from './recorder.js';
import { bytesToText, detach, DirfdToken, findArgsEnd, readDirfd, readPidResult, readQuoted, readReturnValue, splitPid, textToBytes } from './syntax.js';

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
  /** `files` per program that opened them (FileRecorder). */
  byProgram: Map<string, Set<string>>;
  lines: number;
  /** The traced program's process: the first in the log, or the one that executed the gate; null when none. */
  rootPid: number | null;
  /** How the root process ended, when the log says so. */
  rootEnd: ProcessEnd | null;
  /** The first MAX_SKIPPED_SAMPLES skipped lines. */
  skipped: SkippedLine[];
  skippedTotal: number;
}

export interface StraceParserOptions {
  /** The program path whose successful exec starts the trace (see above). */
  gate?: string;
}

const MAX_SKIPPED_SAMPLES = 1000;
/** Stands for the root when strace ran without -f and printed no pids. */
const NO_PID = 0;
const UNFINISHED = ' <unfinished ...>';
const RESUMED = ' resumed>';

interface WaitingLine {
  lineNo: number;
  text: string;
  start: number;
}

export class StraceLogParser {
  private readonly recorder = new FileRecorder();
  private readonly skipped: SkippedLine[] = [];
  private skippedTotal = 0;
  private lines = 0;
  private rootPid: number | null = null;
  private rootEnd: ProcessEnd | null = null;
  /** Text of each pid's call that strace printed as `<unfinished ...>`, up to that marker. */
  private readonly unfinished = new Map<number, string>();
  private readonly waiting = new Map<number, WaitingLine[]>();
  /** The pid of the previous line when that line was an unfinished call. */
  private lastUnfinished: number | null = null;

  /** Paths are kept as byte strings while parsing (see syntax.ts) and decoded once each in `finish`. */
  private readonly initialCwd: string;
  private readonly gate: string | null;
  /** With a gate: the sandbox's processes seen before the gate ran, never part of the trace. */
  private readonly machinery = new Set<number>();

  constructor(initialCwd: string, opts: StraceParserOptions = {}) {
    this.initialCwd = textToBytes(initialCwd);
    this.gate = opts.gate === undefined ? null : textToBytes(opts.gate);
  }

  /** Feeds one line (without its newline). */
  push(text: string): void {
    const lineNo = ++this.lines;
    if (text.length === 0) return;
    let line = text;
    let split = splitPid(line);
    if (split.pid === null && this.lastUnfinished !== null) {
      // strace ends an unfinished call on a line without pid or `<... resumed>` when, as far as it knows, no
      // other process printed since (seen with -z after a vfork child's failed exec was left out).
      line = `${this.lastUnfinished} <... resumed>${line}`;
      split = splitPid(line);
    }
    this.lastUnfinished = split.pid !== null && line.endsWith(UNFINISHED) ? split.pid : null;
    const pid = split.pid ?? NO_PID;
    if (!this.recorder.knows(pid)) {
      if (this.gate !== null) {
        if (this.rootPid === null) return this.beforeGate(pid, line, split.body);
        if (this.machinery.has(pid)) return;
      }
      if (this.rootPid === null) {
        this.rootPid = pid;
        this.recorder.start(pid, this.initialCwd);
      } else {
        let queue = this.waiting.get(pid);
        if (!queue) this.waiting.set(pid, (queue = []));
        queue.push({ lineNo, text: line, start: split.body });
        return;
      }
    }
    this.body(pid, line, split.body, lineNo);
  }

  /**
   * Ends the log: processes whose parent never appeared are read with an unknown working directory; with a
   * gate they belong to the sandbox's machinery (every descendant of the gate's process has its clone line).
   */
  finish(): ParsedTrace {
    if (this.gate === null) {
      for (let next = this.waiting.keys().next(); !next.done; next = this.waiting.keys().next()) {
        this.recorder.start(next.value, null);
        this.adopt(next.value);
      }
    }
    return {
      ...this.recorder.result(),
      lines: this.lines,
      rootPid: this.rootPid,
      rootEnd: this.rootEnd,
      skipped: this.skipped,
      skippedTotal: this.skippedTotal,
    };
  }

  /** A line before the gate ran: the gate's successful exec makes its process the root. */
  private beforeGate(pid: number, line: string, start: number): void {
    this.machinery.add(pid);
    if (!line.startsWith('execve("', start)) return;
    const quoted = readQuoted(line, start + 7);
    if (!quoted || quoted.value !== this.gate) return;
    const close = findArgsEnd(line, quoted.end);
    if (close === -1 || Number.isNaN(readReturnValue(line, close))) return;
    this.machinery.delete(pid);
    this.rootPid = pid;
    this.recorder.start(pid, this.initialCwd);
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
      this.recorder.end(thread);
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
    this.recorder.end(pid);
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

  private pathCall(pid: number, line: string, dirfd: DirfdToken | null, pathAt: number, lineNo: number, effect: PathEffect): void {
    const quoted = readQuoted(line, pathAt);
    const rest = quoted ? quoted.end : pathAt;
    // Only exec calls have strings (argv) after the path; the other arguments are flags, modes and numbers.
    const close = effect === 'exec' ? findArgsEnd(line, rest) : line.indexOf(')', rest);
    if (close === -1) return this.skip(lineNo, 'malformed-line', line);
    if (Number.isNaN(readReturnValue(line, close))) return; // failed calls open nothing
    if (!quoted) return this.skip(lineNo, 'malformed-line', line);
    const path = quoted.value;
    const emptyMeansDir = path === '' && line.includes('AT_EMPTY_PATH', quoted.end);
    const target = absoluteTarget(path, path.startsWith('/') ? null : this.directoryOf(pid, dirfd), emptyMeansDir);
    if (target === null) return this.skip(lineNo, 'unknown-directory', line);
    this.recorder.record(pid, effect, target);
  }

  /** The directory a relative path argument is relative to. */
  private directoryOf(pid: number, dirfd: DirfdToken | null): string | null {
    if (dirfd && !dirfd.atCwd) return dirfd.path;
    // The tracked cwd keeps the path the program used; strace's AT_FDCWD annotation has symlinks resolved.
    if (this.recorder.cwd(pid) === null && dirfd?.path) this.recorder.setCwd(pid, dirfd.path);
    return this.recorder.cwd(pid);
  }

  private fchdir(pid: number, line: string, args: number, lineNo: number): void {
    const dirfd = readDirfd(line, args);
    const close = dirfd ? line.indexOf(')', dirfd.end) : -1;
    if (!dirfd || close === -1) return this.skip(lineNo, 'malformed-line', line);
    if (Number.isNaN(readReturnValue(line, close))) return;
    this.recorder.setCwd(pid, dirfd.path);
    if (dirfd.path === null) this.skip(lineNo, 'unknown-directory', line);
  }

  private fork(pid: number, line: string, args: number, lineNo: number): void {
    const close = line.indexOf(')', args); // clone's arguments hold no strings
    if (close === -1) return this.skip(lineNo, 'malformed-line', line);
    const child = readPidResult(line, close);
    if (Number.isNaN(child)) return;
    const flags = line.indexOf('CLONE_FS', args);
    this.recorder.fork(pid, child, flags !== -1 && flags < close);
    this.adopt(child);
  }

  /** Replays the lines a newly followed `child` printed before its parent's fork returned. */
  private adopt(child: number): void {
    const queue = this.waiting.get(child);
    if (!queue) return;
    this.waiting.delete(child);
    for (const w of queue) {
      if (!this.recorder.knows(child)) {
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
export async function parseStraceLog(logFile: string, initialCwd: string, opts: StraceParserOptions = {}): Promise<ParsedTrace> {
  if (!initialCwd.startsWith('/')) {
    throw new UsageError(`the initial working directory must be absolute, got "${initialCwd}"`);
  }
  const parser = new StraceLogParser(normalizeAbsolute(initialCwd), opts);
  try {
    await forEachLine(logFile, (line) => parser.push(line));
  } catch (err) {
    throw new EnvproofError(`cannot read the strace log ${logFile}: ${errorMessage(err)}`, 'check that the path names an existing, readable file');
  }
  return parser.finish();
}
