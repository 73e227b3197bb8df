/** Cohen's κ: agreement of two raters on the same items beyond what their label frequencies give by chance. */
export interface KappaResult {
  n: number;
  /** Observed agreement, 0–1. */
  observed: number;
  /** Agreement expected by chance from each rater's label shares, 0–1. */
  expected: number;
  /** (observed − expected) / (1 − expected); 1 when both raters use one and the same label throughout; null with no items. */
  kappa: number | null;
}

export function cohensKappa(pairs: readonly (readonly [string, string])[]): KappaResult {
  const n = pairs.length;
  if (n === 0) return { n, observed: 0, expected: 0, kappa: null };
  const observed = pairs.filter(([a, b]) => a === b).length / n;
  const share = (i: 0 | 1) => {
    const m = new Map<string, number>();
    for (const p of pairs) m.set(p[i], (m.get(p[i]) ?? 0) + 1 / n);
    return m;
  };
  const [a, b] = [share(0), share(1)];
  const expected = [...a].reduce((sum, [label, pa]) => sum + pa * (b.get(label) ?? 0), 0);
  return { n, observed, expected, kappa: expected === 1 ? 1 : (observed - expected) / (1 - expected) };
}
