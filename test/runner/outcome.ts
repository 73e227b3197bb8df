/** What one test file's run printed, read back: its counts, and the lines worth showing when it passed. */

export interface FileCounts {
  tests: number;
  pass: number;
  fail: number;
  skipped: number;
  cancelled: number;
  todo: number;
}

const COUNT_KEYS = ['tests', 'pass', 'fail', 'skipped', 'cancelled', 'todo'] as const;

/** The counts of the spec reporter's closing summary (`ℹ tests 12`, ...); undefined when it printed none. */
export function countsOf(output: string): FileCounts | undefined {
  const counts: Partial<FileCounts> = {};
  for (const line of output.split('\n')) {
    const m = /^ℹ (tests|pass|fail|skipped|cancelled|todo) (\d+)$/.exec(line.trim());
    if (m) counts[m[1] as keyof FileCounts] = Number(m[2]);
  }
  return COUNT_KEYS.every((k) => counts[k] !== undefined) ? (counts as FileCounts) : undefined;
}

/** The lines of skipped tests (`﹣ name (0.1ms) # reason`): a skip is shown even when its file passed. */
export function skipLines(output: string): string[] {
  return output.split('\n').filter((l) => /^\s*﹣ .*# /.test(l)).map((l) => l.trim());
}

export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, '0')} s`;
}

/** The `n` slowest files, a line each, with their CPU seconds where counted: `  312.4 s   401.0 s CPU  test/x.test.ts`. */
export function slowest(durations: Readonly<Record<string, number>>, n: number, cpuSeconds: Readonly<Record<string, number>> = {}): string[] {
  const counted = Object.keys(cpuSeconds).length > 0;
  return Object.entries(durations)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([file, ms]) => {
      const cpu = cpuSeconds[file];
      const cpuColumn = !counted ? '' : cpu === undefined ? `${'—'.padStart(8)}      ` : `${cpu.toFixed(1).padStart(8)} s CPU`;
      return `${(ms / 1000).toFixed(1).padStart(8)} s${cpuColumn}  ${file}`;
    });
}
