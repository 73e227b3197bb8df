import type { Outcome, Verdict } from './types.js';

/**
 * How `outcome` differs from `reference`: its status, and, when both have per-test results, every test whose
 * result changed or that is present in only one. Empty: the outcome reproduces the reference.
 */
export function differences(reference: Outcome, outcome: Outcome): string[] {
  const out: string[] = [];
  if (reference.status !== outcome.status) out.push(`status ${reference.status} → ${outcome.status}`);
  if (reference.tests && outcome.tests) {
    const ids = [...new Set([...Object.keys(reference.tests), ...Object.keys(outcome.tests)])].sort();
    for (const id of ids) {
      const a = reference.tests[id] ?? 'absent';
      const b = outcome.tests[id] ?? 'absent';
      if (a !== b) out.push(`${id}: ${a} → ${b}`);
    }
  }
  return out;
}

/** r = matching runs / k. */
export function reproductionRate(matches: readonly boolean[]): number {
  return matches.length === 0 ? 0 : matches.filter(Boolean).length / matches.length;
}

export function verdictOf(rate: number): Verdict {
  return rate === 1 ? 'reproducible' : rate === 0 ? 'broken' : 'flaky';
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The q-quantile, interpolated between the order statistics (the usual type 7). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo]! + (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!) * (at - lo);
}
