import { rateText } from './attribute.js';
import type { ReproReport, RunRecord } from './types.js';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function varied(run: RunRecord): string {
  const changed = run.variation.filter((s) => s.mode === 'varied');
  const drawn = run.variation.filter((s) => s.mode === 'drawn').map((s) => s.value);
  const what = changed.length === 0 ? (run.role === 'reference' || run.role === 'rerun' ? 'default environment' : 'everything pinned') : changed.map((s) => (s.applied ? s.value : `${s.factor} not applied`)).join(', ');
  return drawn.length ? `${what} (drawn: ${drawn.join(', ')})` : what;
}

function table(runs: readonly RunRecord[]): string[] {
  const rows = runs.map((r, i) => [String(i + 1), r.role, r.outcome.status, r.role === 'reference' ? '' : r.matches ? 'yes' : 'no', `${(r.durationMs / 1000).toFixed(1)} s`, varied(r)]);
  const head = ['#', 'run', 'outcome', 'matches', 'time', 'varied'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  return [head, ...rows].map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : pad(cell, widths[c]!))).join('  ').trimEnd());
}

/** What the reference ran under, as recorded: " (TZ=Asia/Shanghai, PYTHONHASHSEED seed 42, linux-x64)". */
function environmentText(env: ReproReport['reference']['environment']): string {
  if (!env) return '';
  const parts = [env.timezone && `TZ=${env.timezone}`, env.locale && `LANG=${env.locale}`, ...Object.entries(env.seeds ?? {}).map(([f, seed]) => `${f} seed ${seed}`), env.platform].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** The short text report of `envproof repro`. */
export function renderReproText(report: ReproReport): string {
  const lines = [
    `envproof repro: ${report.project}`,
    `command ${report.command} (${report.kind}), sandbox ${report.sandbox}`,
    `reference: ${report.reference.source === 'file' ? `from ${report.reference.path}` : 'the first run'}, recorded ${report.reference.recordedAt}, ${report.reference.outcome.status}${environmentText(report.reference.environment)}`,
    '',
    ...table(report.runs),
    '',
    `verdict ${report.verdict}   rate ${report.rate.toFixed(2)}, ${rateText(Math.round(report.rate * report.k), report.k)} re-runs match (95% Wilson interval)`,
  ];
  if (report.tracer) {
    const compared = report.runs.filter((r) => r.loadedDifferences);
    const drifted = compared.filter((r) => r.loadedDifferences!.length);
    const summary = compared.length === 0 ? 'no reference run to compare what was loaded with' : drifted.length ? `${drifted.length} of ${compared.length} re-runs loaded other packages than the reference run` : 'every re-run loaded what the reference run loaded';
    lines.push('', `traced (--tracer ${report.tracer}): ${summary}`);
    for (const r of drifted) lines.push(`  run ${report.runs.indexOf(r) + 1}: ${r.loadedDifferences!.join(', ')}`);
  }
  if (report.causes) {
    const a = report.attribution;
    const stopped = a?.notTried.length ? ` (stopped at the first cause; not tried: ${a.notTried.join(', ')}; --attribute all tries every factor)` : '';
    lines.push('', report.causes.length ? `Causes${stopped}` : 'Causes: none (reproducible)');
    for (const c of report.causes) lines.push(`  ${pad(c.factor, 17)} ${pad(c.category, 21)} ${c.evidence}`);
  }
  if (report.shim) {
    const s = report.shim;
    const spread = s.overheadSpread ? ` (median of ${s.overheadSpread.pairs} pairs with a default-environment run; IQR ${s.overheadSpread.q1.toFixed(3)}–${s.overheadSpread.q3.toFixed(3)}, range ${s.overheadSpread.min.toFixed(3)}–${s.overheadSpread.max.toFixed(3)})` : '';
    lines.push('', `with the shim: verdict ${s.verdict}, rate ${s.rate.toFixed(2)}, ${rateText(Math.round(s.rate * s.runs.length), s.runs.length)} runs match; overhead ${s.overheadRatio === null ? 'unknown' : `${s.overheadRatio.toFixed(3)}x`}${spread}`);
    lines.push(`  pinned: ${s.pins.join('; ')}`);
  }
  for (const note of [...report.notes, ...unappliedNotes(report)]) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}

/** A note told apart from another only by a time read in the run (the clock probe's), so that such notes merge. */
const noteKey = (factor: string, note: string | undefined) => `${factor}: ${(note ?? '').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')}`;

/**
 * One line per factor and reason it could not be applied, however many runs it was in: the first run's note, then
 * which runs (their numbers in the table; attribution's counted) when more than one.
 */
export function unappliedNotes(report: Pick<ReproReport, 'runs' | 'attributionRuns'>): string[] {
  const groups = new Map<string, { text: string; runs: number[]; attribution: number }>();
  const add = (r: RunRecord, tableIndex: number | undefined) => {
    for (const s of r.variation.filter((x) => !x.applied)) {
      const key = noteKey(s.factor, s.note);
      const g = groups.get(key) ?? { text: `${s.factor}: ${s.note}`, runs: [], attribution: 0 };
      if (tableIndex === undefined) g.attribution++;
      else g.runs.push(tableIndex);
      groups.set(key, g);
    }
  };
  report.runs.forEach((r, i) => add(r, i + 1));
  for (const r of report.attributionRuns ?? []) add(r, undefined);
  return [...groups.values()].map((g) => {
    const where = [g.runs.length ? `run${g.runs.length > 1 ? 's' : ''} ${g.runs.join(', ')}` : '', g.attribution ? `${g.attribution} attribution run${g.attribution > 1 ? 's' : ''}` : ''].filter(Boolean);
    return g.runs.length + g.attribution > 1 ? `${g.text} (in ${where.join(' and ')})` : g.text;
  });
}
