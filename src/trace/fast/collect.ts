/** One run's records from the fast tracer, turned into the files its processes opened and executed. */
import { constants } from 'node:os';
import type { ProcessEnd } from '../parse.js';
import { absoluteTarget, FileRecorder, type PathEffect } from '../recorder.js';
import { textToBytes } from '../syntax.js';
import { RecordFlag, RecordKind, type TraceRecord } from './records.js';

/** Signal numbers to names; of two names for one number (SIGABRT, SIGIOT) the first, as strace prints it. */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, n] of Object.entries(constants.signals)) if (!SIGNAL_NAMES.has(n)) SIGNAL_NAMES.set(n, name);

/** A task's exit code as the kernel keeps it (wait(2)'s status): a signal in the low 7 bits, else the code. */
function processEnd(status: number): ProcessEnd {
  const signal = status & 0x7f;
  if (signal === 0) return { kind: 'exited', code: (status >> 8) & 0xff };
  return { kind: 'killed', signal: SIGNAL_NAMES.get(signal) ?? `SIG${signal}`, coreDumped: (status & 0x80) !== 0 };
}

export class FastTraceCollector {
  private readonly recorder = new FileRecorder();
  private readonly initialCwd: string;
  /** The process that executed the gate: the program, once it has executed it. */
  private rootTid: number | null = null;
  private rootEnd: ProcessEnd | null = null;
  private programStarted = false;
  /** Records the tracer could not read in full, or of processes it never saw start. */
  private incomplete = 0;

  constructor(initialCwd: string) {
    this.initialCwd = textToBytes(initialCwd);
  }

  push(r: TraceRecord): void {
    if (r.flags & RecordFlag.incomplete) this.incomplete++;
    switch (r.kind) {
      case RecordKind.armed:
        this.rootTid = r.tid;
        return this.recorder.start(r.tid, this.initialCwd);
      case RecordKind.fork:
        return this.recorder.fork(r.tid, r.aux, (r.flags & RecordFlag.sharesFs) !== 0);
      case RecordKind.exit:
        if (r.tid === this.rootTid) this.rootEnd = processEnd(r.aux);
        return this.recorder.end(r.tid);
      case RecordKind.exec:
        if (r.aux !== r.tid) this.recorder.supersede(r.aux, r.tid);
        if (r.tid === this.rootTid) this.programStarted = true;
        return this.pathCall(r, 'exec');
      case RecordKind.open:
        return this.pathCall(r, 'open');
      case RecordKind.chdir:
        return this.pathCall(r, 'chdir');
      case RecordKind.fchdir:
        return this.recorder.setCwd(r.tid, r.dir);
    }
  }

  private pathCall(r: TraceRecord, effect: PathEffect): void {
    if (!this.recorder.knows(r.tid)) {
      this.incomplete++;
      return;
    }
    // An empty path with a directory can only be a successful execveat(fd, "", AT_EMPTY_PATH).
    const target = absoluteTarget(r.path, r.dir ?? this.recorder.cwd(r.tid), r.dir !== null);
    if (target === null) this.incomplete++;
    else this.recorder.record(r.tid, effect, target);
  }

  result() {
    return {
      ...this.recorder.result(),
      gateRan: this.rootTid !== null,
      programStarted: this.programStarted,
      rootEnd: this.rootEnd,
      incomplete: this.incomplete,
    };
  }
}
