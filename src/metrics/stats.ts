/** Small statistics used by the aggregate metrics. Written here (no dependency) so the arithmetic is auditable. */

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Middle value; the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Quantile p of ascending `sorted` with linear interpolation between order statistics (R type 7, as d3 and Vega). */
export function quantile(sorted: readonly number[], p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const a = sorted[lo]!;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)]!;
  return a + (b - a) * (h - lo);
}

/** 100 × part / whole, null when whole is 0. */
export function pct(part: number, whole: number): number | null {
  return whole === 0 ? null : (100 * part) / whole;
}

/**
 * The Wilson score interval of a proportion (`successes` of `n`) at the normal quantile `z` (1.96: 95%): unlike the
 * normal approximation it stays inside [0, 1] and is not empty at 0 or n successes. Null for n = 0.
 */
export function wilsonInterval(successes: number, n: number, z = 1.96): [number, number] | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** log C(n, i), for binomial and hypergeometric probabilities without overflow. */
export function logChoose(n: number, i: number): number {
  let s = 0;
  for (let j = 1; j <= i; j++) s += Math.log(n - i + j) - Math.log(j);
  return s;
}

/**
 * Fisher's exact test (two-sided) of the 2×2 table [[a, b], [c, d]] (rows: two groups; columns: two outcomes): the
 * probability, with the margins fixed, of a table at most as likely as this one under no association.
 */
export function fisherExact(a: number, b: number, c: number, d: number): number {
  const row1 = a + b;
  const row2 = c + d;
  const col1 = a + c;
  const n = row1 + row2;
  const logP = (x: number) => logChoose(row1, x) + logChoose(row2, col1 - x) - logChoose(n, col1);
  const observed = logP(a);
  let p = 0;
  for (let x = Math.max(0, col1 - row2); x <= Math.min(row1, col1); x++) {
    const lp = logP(x);
    // A relative tolerance, so that tables exactly as likely as the observed one count despite rounding.
    if (lp <= observed + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/** |A ∩ B| / |A ∪ B|, 1 when both are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  return both / (a.size + b.size - both);
}

/** Ranks 1..n, ties get the average of the ranks they span. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.v === order[start]!.v) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = rank;
    start = end + 1;
  }
  return ranks;
}

function pearson(x: readonly number[], y: readonly number[]): number | null {
  const mx = mean(x);
  const my = mean(y);
  if (mx === null || my === null) return null;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

export interface SpearmanResult {
  n: number;
  /** null when fewer than 3 pairs or either variable is constant. */
  rho: number | null;
  pValue: number | null;
}

/**
 * Spearman's rank correlation (Pearson correlation of average ranks, so ties are handled) with a two-sided
 * p-value from the t approximation t = ρ √((n−2)/(1−ρ²)) with n − 2 degrees of freedom, the approximation
 * SciPy's `spearmanr` uses.
 */
export function spearman(x: readonly number[], y: readonly number[]): SpearmanResult {
  const n = x.length;
  if (n !== y.length) throw new Error('spearman: samples differ in length');
  const rho = n < 3 ? null : pearson(averageRanks(x), averageRanks(y));
  if (rho === null) return { n, rho: null, pValue: null };
  const df = n - 2;
  if (Math.abs(rho) >= 1) return { n, rho, pValue: 0 };
  const t = rho * Math.sqrt(df / (1 - rho * rho));
  return { n, rho, pValue: studentTwoSidedP(t, df) };
}

/** P(|T| ≥ |t|) for Student's t with df degrees of freedom: I_{df/(df+t²)}(df/2, 1/2). */
export function studentTwoSidedP(t: number, df: number): number {
  return regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
}

function logGamma(z: number): number {
  // Lanczos approximation (g = 7, n = 9), accurate to ~1e-15 for z > 0.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * z))) - logGamma(1 - z);
  const x = z - 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction for the incomplete beta function (modified Lentz's method). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b), for 0 ≤ x ≤ 1 and a, b > 0. */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) otherwise.
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(x, a, b)) / a
    : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}
