/** The seed's corpus figures from the stored instances: shares, causes, the shim's effect, drift by age. Pure. */
import type { ReproInstanceRow } from '../store/repro-tables.js';
import { logChoose } from '../metrics/stats.js';
import { median } from './compare.js';
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
  drift: HalfLife;
}

const DAY_MS = 86_400_000;

export function corpusFigures(rows: readonly ReproInstanceRow[]): CorpusFigures {
  const done = rows.filter((r) => r.verdict !== null);
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
    drift: driftHalfLife(done.map((r) => ({ ageDays: (Date.parse(r.rerunAt) - Date.parse(r.recordedAt)) / DAY_MS, drifted: (r.causes ?? []).some((x) => x.category === 'dependency-drift') }))),
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
  const d = f.drift;
  lines.push(
    d.days === null
      ? `Dependency drift: no half-life (${d.drifted} of ${d.n} instances drifted; a fit needs some that did and some that did not).`
      : `Dependency drift: half-life ${d.days.toFixed(0)} days (95% CI ${d.ci![0].toFixed(0)}–${d.ci![1] >= 1e6 ? '∞' : d.ci![1].toFixed(0)}), ${d.drifted} of ${d.n} instances drifted.`,
  );
  return `${lines.join('\n')}\n`;
}
