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
