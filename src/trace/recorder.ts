/**
 * What the traced processes opened and executed, whichever tracer reported it: each process's working
 * directory is followed (a child inherits its parent's at fork and shares it when cloned with CLONE_FS, as
 * threads are; chdir and fchdir change it), and every successful open or exec is kept as an absolute,
 * lexically normalised path. Paths are byte strings (one character per byte, see syntax.ts) until `result`.
 * Each process's program is followed too (inherited at fork, replaced by exec), so that every file is also kept
 * per program that opened it: a library mapped by /bin/ls is told from one the project's executable mapped.
 */
import { normalizeAbsolute, resolveAgainst } from './paths.js';
import { bytesToText, detach } from './syntax.js';

/** The working directory of one process, shared by processes cloned with CLONE_FS. */
interface FsContext {
  /** null when unknown (a process whose parent never appeared in the trace). */
  cwd: string | null;
}

export type PathEffect = 'open' | 'exec' | 'chdir';

/**
 * `path` as an absolute path: as it is when absolute, `dir` itself when `path` is empty and the call allowed
 * that (AT_EMPTY_PATH), else against `dir`; null when `dir` is unknown.
 */
export function absoluteTarget(path: string, dir: string | null, emptyMeansDir: boolean): string | null {
  if (path.startsWith('/')) return normalizeAbsolute(path);
  if (path === '' && emptyMeansDir) return dir;
  return dir === null ? null : resolveAgainst(dir, path);
}

export class FileRecorder {
  private readonly files = new Set<string>();
  private readonly execs: string[] = [];
  private readonly fsOf = new Map<number, FsContext>();
  /** The program each process runs: the last exec it (or the parent it was forked from) made; '' before any. */
  private readonly programOf = new Map<number, string>();
  private readonly byProgram = new Map<string, Set<string>>();

  knows(pid: number): boolean {
    return this.fsOf.has(pid);
  }

  /** Starts following a process whose parent is not followed, in `cwd` (null: unknown). */
  start(pid: number, cwd: string | null): void {
    this.fsOf.set(pid, { cwd });
  }

  fork(parent: number, child: number, sharesFs: boolean): void {
    const fs = this.fsOf.get(parent) ?? { cwd: null };
    this.fsOf.set(child, sharesFs ? fs : { cwd: fs.cwd });
    this.programOf.set(child, this.programOf.get(parent) ?? '');
  }

  /** The process ended; its pid may be reused by a later fork. */
  end(pid: number): void {
    this.fsOf.delete(pid);
    this.programOf.delete(pid);
  }

  /** A thread other than the leader exec'd: it continues as the leader's pid. */
  supersede(thread: number, leader: number): void {
    const fs = this.fsOf.get(thread);
    if (fs) this.fsOf.set(leader, fs);
    this.fsOf.delete(thread);
    this.programOf.set(leader, this.programOf.get(thread) ?? '');
    this.programOf.delete(thread);
  }

  cwd(pid: number): string | null {
    return this.fsOf.get(pid)?.cwd ?? null;
  }

  setCwd(pid: number, cwd: string | null): void {
    const fs = this.fsOf.get(pid);
    if (fs) fs.cwd = cwd === null ? null : detach(cwd);
  }

  /** Records a successful call on the absolute `target`. */
  record(pid: number, effect: PathEffect, target: string): void {
    if (effect === 'chdir') return this.setCwd(pid, target);
    if (!this.files.has(target)) this.files.add(detach(target));
    if (effect === 'exec') {
      this.execs.push(detach(target));
      this.programOf.set(pid, detach(target));
    }
    const program = this.programOf.get(pid) ?? '';
    let files = this.byProgram.get(program);
    if (!files) this.byProgram.set(program, (files = new Set()));
    if (!files.has(target)) files.add(detach(target));
  }

  /** The files, the execs and the files per program ('' for what a process opened before any exec), decoded from bytes to text. */
  result(): { files: Set<string>; execs: string[]; byProgram: Map<string, Set<string>> } {
    const byProgram = new Map([...this.byProgram].map(([program, files]) => [bytesToText(program), new Set([...files].map(bytesToText))]));
    return { files: new Set([...this.files].map(bytesToText)), execs: this.execs.map(bytesToText), byProgram };
  }
}
