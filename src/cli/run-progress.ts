/**
 * The progress of `envproof run`: one line per event where standard error is a file or a pipe; on a terminal, the
 * same lines for what happened (attempts, retries, runs ended) scrolling above one live status line per worker slot.
 */
import { emptyCounts, type ProgressEvent } from '../protocol/matrix.js';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** 75 s → "1:15", 4000 s → "1:06:40". */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

function runLabel(e: ProgressEvent): string {
  const p = e.plan;
  return `${p.agent.name} ${p.task.id} ${p.language} #${p.trial}`;
}

function where(e: ProgressEvent): string {
  return `[${e.done}/${e.total} ${clock(e.elapsedMs)}${e.etaMs === undefined ? '' : ` ETA ${clock(e.etaMs)}`}]`;
}

/** The line of one event: where the matrix stands, the run, what it is doing or what happened. */
export function progressLine(e: ProgressEvent): string {
  return `${where(e)} ${runLabel(e)}: ${e.phase}${e.failures > 0 ? ` (failed so far: ${e.failures})` : ''}`;
}

/** Phases that only say what a run is busy with: on a terminal they update its slot's line instead of scrolling. */
const BUSY = /^(generating|repair round \d+|executing attempt \d+)$/;

/** The phase of a run's last event: how it ended. */
const OUTCOMES: ReadonlySet<string> = new Set(Object.keys(emptyCounts()));

export interface RunProgress {
  event(e: ProgressEvent): void;
  /** A line of envproof's own (a warning, the stop on Ctrl-C), kept clear of the live lines. */
  note(message: string): void;
  /** Removes the live lines (before the summary). */
  close(): void;
}

/** Lines only: every event, as it happens. */
class LineProgress implements RunProgress {
  constructor(private readonly out: ProgressOutput) {}
  event(e: ProgressEvent): void {
    this.out.write(`${progressLine(e)}\n`);
  }
  note(message: string): void {
    this.out.write(`${message}\n`);
  }
  close(): void {}
}

interface Slot {
  label: string;
  phase: string;
  since: number;
}

/** On a terminal: scrolling lines for what happened, and below them a header and one live line per worker slot. */
export class LiveProgress implements RunProgress {
  private readonly slots: (Slot | undefined)[];
  private last: ProgressEvent | undefined;
  private drawn = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly started: number;

  constructor(
    private readonly out: ProgressOutput,
    slots: number,
    private readonly now: () => number = Date.now,
    refreshMs = 1000,
  ) {
    this.slots = Array.from({ length: slots }, () => undefined);
    this.started = now();
    this.timer = setInterval(() => this.redraw([]), refreshMs);
    this.timer.unref();
  }

  event(e: ProgressEvent): void {
    this.last = e;
    const label = runLabel(e);
    const current = this.slots[e.slot];
    this.slots[e.slot] = OUTCOMES.has(e.phase) ? undefined : { label, phase: e.phase, since: current?.label === label ? current.since : this.now() };
    this.redraw(BUSY.test(e.phase) ? [] : [progressLine(e)]);
  }

  note(message: string): void {
    this.redraw([message]);
  }

  close(): void {
    clearInterval(this.timer);
    this.out.write(this.erase());
    this.drawn = 0;
  }

  /** Moves up over the live lines drawn last and clears them. */
  private erase(): string {
    return this.drawn > 0 ? `\x1b[${this.drawn}A\r\x1b[J` : '\r\x1b[J';
  }

  private redraw(logLines: readonly string[]): void {
    const width = Math.max(20, (this.out.columns ?? 80) - 1);
    // A line wider than the terminal would wrap and break the count of lines to move up over.
    const fit = (line: string) => (line.length > width ? `${line.slice(0, width - 1)}…` : line);
    const e = this.last;
    const elapsed = `${clock(this.now() - this.started)} elapsed`;
    const header = e ? `${e.done}/${e.total} runs ended, ${e.failures} failed, ${elapsed}${e.etaMs === undefined ? '' : `, ETA ${clock(e.etaMs)}`}` : elapsed;
    const live = [header, ...this.slots.map((s, i) => `  slot ${i + 1}: ${s ? `${s.label}: ${s.phase} (${clock(this.now() - s.since)})` : 'idle'}`)];
    this.out.write(`${this.erase()}${logLines.map((l) => `${l}\n`).join('')}${live.map((l) => `${fit(l)}\n`).join('')}`);
    this.drawn = live.length;
  }
}

/** Live lines on a terminal, plain lines elsewhere. */
export function runProgress(out: ProgressOutput, slots: number): RunProgress {
  return out.isTTY ? new LiveProgress(out, slots) : new LineProgress(out);
}
