/** The seed's corpus figures from the stored instances: shares, causes, the shim's effect, drift by age. Pure. */
import type { ReproInstanceRow, StoredRun } from '../store/repro-tables.js';
import { logChoose, median } from '../metrics/stats.js';
import { instanceFigures, instanceTable, type InstanceFigures } from './corpus-instances.js';
import type { CauseCategory, Verdict } from './types.js';

const VERDICTS: readonly Verdict[] = ['reproducible', 'flaky', 'broken'];
const CATEGORIES: readonly CauseCategory[] = ['implicit-environment', 'dependency-drift', 'time-date', 'test-order', 'network', 'other'];

export interface Share {
  name: string;
  count: number;
  share: number;
}

function shares<T extends string>(names: readonly T[], values: readonly T[]): Share[] {
  return names.map((name) => {
    const count = values.filter((v) => v === name).length;
    return { name, count, share: values.length ? count / values.length : 0 };
  });
}

/**
 * Exact McNemar test (two-sided): of the n = b + c discordant pairs, b not reproducible without the shim and
 * reproducible with it, c the reverse; p = min(1, 2·P(X ≤ min(b, c))) for X ~ Binomial(n, 1/2).
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0;
  for (let i = 0; i <= Math.min(b, c); i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

export interface HalfLife {
  /** Days until half of the instances have drifted, ln 2 / λ, under an exponential model; null when it cannot be fitted. */
  days: number | null;
  /** 95% profile-likelihood interval of the half-life. */
  ci: [number, number] | null;
  n: number;
  drifted: number;
}

/**
 * Fits P(drifted by age t) = 1 − e^(−λt) to (age in days, drifted?) observations: each instance is seen once, at
 * its re-run (current-status data), so the log-likelihood is Σ d·log(1 − e^(−λt)) − (1 − d)·λt. The maximum is
 * found on log λ by golden-section search; the interval is where the log-likelihood is within χ²₁(0.95)/2 of it.
 */
export function driftHalfLife(obs: readonly { ageDays: number; drifted: boolean }[]): HalfLife {
  const data = obs.filter((o) => o.ageDays > 0);
  const drifted = data.filter((o) => o.drifted).length;
  const base = { n: data.length, drifted };
  if (drifted === 0 || drifted === data.length) return { ...base, days: null, ci: null };
  const ll = (logLambda: number) => {
    const lambda = Math.exp(logLambda);
    return data.reduce((s, o) => s + (o.drifted ? Math.log(-Math.expm1(-lambda * o.ageDays)) : -lambda * o.ageDays), 0);
  };
  const LO = Math.log(1e-7);
  const HI = Math.log(10);
  const argmax = golden(ll, LO, HI);
  const best = ll(argmax);
  const cut = best - 3.841 / 2;
  const below = (a: number, b: number) => bisect((x) => ll(x) - cut, a, b);
  const upperLambda = ll(HI) < cut ? below(argmax, HI) : HI;
  const lowerLambda = ll(LO) < cut ? below(LO, argmax) : LO;
  const halfLife = (logLambda: number) => Math.LN2 / Math.exp(logLambda);
  return { ...base, days: halfLife(argmax), ci: [halfLife(upperLambda), halfLife(lowerLambda)] };
}

function golden(f: (x: number) => number, a: number, b: number): number {
  const r = (Math.sqrt(5) - 1) / 2;
  let c = b - r * (b - a);
  let d = a + r * (b - a);
  for (let i = 0; i < 200 && b - a > 1e-9; i++) {
    if (f(c) > f(d)) b = d;
    else a = c;
    c = b - r * (b - a);
    d = a + r * (b - a);
  }
  return (a + b) / 2;
}

/** A root of f between a and b, where f changes sign. */
function bisect(f: (x: number) => number, a: number, b: number): number {
  let fa = f(a);
  for (let i = 0; i < 200 && b - a > 1e-9; i++) {
    const m = (a + b) / 2;
    const fm = f(m);
    if (Math.sign(fm) === Math.sign(fa)) {
      a = m;
      fa = fm;
    } else b = m;
  }
  return (a + b) / 2;
}

export interface CorpusFigures {
  instances: number;
  verdicts: Share[];
  /** Among instances that did not reproduce: the share whose unpatched baseline was flaky too. */
  baselineFlaky: { count: number; of: number; share: number };
  /** Per category, the share of all causes found. */
  causes: Share[];
  shim: { verdicts: Share[]; notReproducibleWithout: number; notReproducibleWith: number; b: number; c: number; pValue: number };
  overhead: { medianRatio: number | null; n: number };
  /** Fitted over the instances whose drift was tested (`n`); the others counted by why not. */
  drift: HalfLife & { notTested: { why: string; count: number }[] };
  /** Per instance, in the store's order. */
  rows: InstanceFigures[];
}

/** A finished instance of the store and its runs. */
export interface StoredInstance {
  row: ReproInstanceRow;
  runs: readonly StoredRun[];
}

const DAY_MS = 86_400_000;

export function corpusFigures(stored: readonly StoredInstance[]): CorpusFigures {
  const finished = stored.filter((s) => s.row.verdict !== null);
  const done = finished.map((s) => s.row);
  const perInstance = finished.map((s) => instanceFigures(s.row, s.runs));
  const untested = perInstance.flatMap((r) => (r.drift.tested ? [] : [r.drift.why]));
  const notRepro = done.filter((r) => r.verdict !== 'reproducible');
  const baselineFlaky = notRepro.filter((r) => r.baselineVerdict === 'flaky' || r.baselineVerdict === 'broken').length;
  const causeCategories = done.flatMap((r) => (r.causes ?? []).map((c) => c.category));
  const paired = done.filter((r) => r.shimVerdict !== null);
  const bad = (v: Verdict | null) => v !== 'reproducible';
  const b = paired.filter((r) => bad(r.verdict) && !bad(r.shimVerdict)).length;
  const c = paired.filter((r) => !bad(r.verdict) && bad(r.shimVerdict)).length;
  const ratios = done.map((r) => r.overheadRatio).filter((x): x is number => x !== null);
  return {
    instances: done.length,
    verdicts: shares(VERDICTS, done.map((r) => r.verdict!)),
    baselineFlaky: { count: baselineFlaky, of: notRepro.length, share: notRepro.length ? baselineFlaky / notRepro.length : 0 },
    causes: shares(CATEGORIES, causeCategories),
    shim: {
      verdicts: shares(VERDICTS, paired.map((r) => r.shimVerdict!)),
      notReproducibleWithout: paired.filter((r) => bad(r.verdict)).length,
      notReproducibleWith: paired.filter((r) => bad(r.shimVerdict)).length,
      b,
      c,
      pValue: mcnemarExact(b, c),
    },
    overhead: { medianRatio: median(ratios), n: ratios.length },
    drift: {
      ...driftHalfLife(done.flatMap((r, i) => (perInstance[i]!.drift.tested ? [{ ageDays: (Date.parse(r.rerunAt) - Date.parse(r.recordedAt)) / DAY_MS, drifted: perInstance[i]!.drift.drifted }] : []))),
      notTested: [...new Set(untested)].map((why) => ({ why, count: untested.filter((w) => w === why).length })),
    },
    rows: perInstance,
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** The figures as Markdown tables (the seed's §4 and §4.2). */
export function renderCorpusMarkdown(f: CorpusFigures): string {
  const lines = [`## Reproducibility of patches (${f.instances} instances)`, '', '| verdict | instances | share | with the shim |', '|---|---:|---:|---:|'];
  for (const [i, v] of f.verdicts.entries()) lines.push(`| ${v.name} | ${v.count} | ${pct(v.share)} | ${pct(f.shim.verdicts[i]!.share)} |`);
  lines.push('', `Baseline flaky or broken too: ${f.baselineFlaky.count} of ${f.baselineFlaky.of} patches that did not reproduce (${pct(f.baselineFlaky.share)}).`);
  lines.push('', '| cause | causes | share of causes |', '|---|---:|---:|');
  for (const c of f.causes) lines.push(`| ${c.name} | ${c.count} | ${pct(c.share)} |`);
  const s = f.shim;
  lines.push('', `Shim: broken+flaky ${s.notReproducibleWithout} → ${s.notReproducibleWith}; exact McNemar b = ${s.b}, c = ${s.c}, p = ${s.pValue.toPrecision(3)}.`);
  lines.push(`Shim overhead: median ratio ${f.overhead.medianRatio === null ? 'n/a' : f.overhead.medianRatio.toFixed(3)} over ${f.overhead.n} instances.`);
  lines.push(driftLine(f.drift));
  const [head, ...rows] = instanceTable(f.rows);
  lines.push('', '### Per instance', '', `| ${head!.join(' | ')} |`, `|${head!.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`));
  return `${lines.join('\n')}\n`;
}

/** "Dependency drift: 0 of 1 tested drifted; 1 not tested (go: no dated resolution); …": drift counted only where it was tested. */
function driftLine(d: CorpusFigures['drift']): string {
  const untested = d.notTested.map((x) => `${x.count} not tested (${x.why})`);
  const counts = [`${d.drifted} of ${d.n} tested drifted`, ...untested].join('; ');
  return d.days === null
    ? `Dependency drift: ${counts}; no half-life (a fit needs tested instances that drifted and some that did not).`
    : `Dependency drift: ${counts}; half-life ${d.days.toFixed(0)} days (95% CI ${d.ci![0].toFixed(0)}–${d.ci![1] >= 1e6 ? '∞' : d.ci![1].toFixed(0)}).`;
}

/** The figures as plain text, for the terminal (`repro --corpus`): the same content as the Markdown. */
export function renderCorpusText(f: CorpusFigures): string {
  const counts = (s: readonly Share[]) => s.map((v) => `${v.count} ${v.name}`).join(', ');
  const found = f.causes.filter((c) => c.count > 0);
  const [head, ...rows] = instanceTable(f.rows);
  const widths = head!.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const table = [head!, ...rows].map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
  const s = f.shim;
  return `${[
    `repro corpus: ${f.instances} instances`,
    '',
    ...table,
    '',
    `verdicts: ${counts(f.verdicts)}; with the shim: ${counts(s.verdicts)}`,
    `baseline flaky or broken too: ${f.baselineFlaky.count} of ${f.baselineFlaky.of} patches that did not reproduce`,
    `causes: ${found.map((c) => `${c.count} ${c.name}`).join(', ') || 'none'}`,
    `shim: broken+flaky ${s.notReproducibleWithout} → ${s.notReproducibleWith}; exact McNemar b = ${s.b}, c = ${s.c}, p = ${s.pValue.toPrecision(3)}; median overhead ${f.overhead.medianRatio === null ? 'n/a' : f.overhead.medianRatio.toFixed(3)} over ${f.overhead.n}`,
    driftLine(f.drift),
  ].join('\n')}\n`;
}
