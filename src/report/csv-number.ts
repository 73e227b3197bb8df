/**
 * Numbers written the way the paper's tables were (Python's `round(x, n)` then `str()`), so that envproof's CSVs
 * can be compared with the published ones string for string.
 */

/**
 * Python's round(x, decimals): round-half-even on the exact binary value of x. `toFixed` already rounds the
 * exact value, but breaks exact ties away from zero; an exact tie at `decimals` has a finite expansion ending in
 * that 5, which `toFixed(100)` (exact for the magnitudes reported here) reveals.
 */
export function pyRound(x: number, decimals: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21) return x;
  const exact = Math.abs(x).toFixed(100);
  const frac = exact.slice(exact.indexOf('.') + 1);
  const isTie = frac[decimals] === '5' && /^0*$/.test(frac.slice(decimals + 1));
  if (!isTie) return Number(x.toFixed(decimals));
  const truncated = exact.slice(0, exact.indexOf('.') + 1 + decimals);
  const lastKept = decimals === 0 ? exact[exact.indexOf('.') - 1]! : truncated[truncated.length - 1]!;
  const value = Number(Number(lastKept) % 2 === 0 ? truncated : Math.abs(x).toFixed(decimals));
  return x < 0 ? -value : value;
}

/** Python's repr of a float: shortest round-trip digits, `.0` on integral values, exponent below 1e-4 or from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs < 1e-4 || abs >= 1e16) {
    const [mantissa, exp] = x.toExponential().split('e') as [string, string];
    const sign = exp.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exp.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  const s = String(x);
  return Number.isInteger(x) ? `${s}.0` : s;
}

/**
 * A value as the paper's CSVs show it: `round(x, decimals)` printed as a Python float, or as an int when
 * `int` is set and the value is integral (Python's statistics.mean of integers returns an int then).
 * null is an empty cell.
 */
export function formatNumber(x: number | null, decimals: number, opts: { int?: boolean } = {}): string {
  if (x === null) return '';
  if (opts.int && Number.isInteger(x)) return String(x);
  return pyFloatRepr(pyRound(x, decimals));
}

/** A value to `digits` significant digits (p-values, which can be tiny), printed as a Python float. */
export function formatSignificant(x: number | null, digits: number): string {
  return x === null ? '' : pyFloatRepr(Number(x.toPrecision(digits)));
}
