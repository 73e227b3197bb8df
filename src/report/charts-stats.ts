/** Summaries that keep large figures small: box-plot statistics and an evenly spread sample of order statistics. */
import { quantile } from '../metrics/stats.js';

export interface BoxStats {
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
}

/** Five-number summary of a non-empty ascending list. */
export function boxStats(sorted: readonly number[]): BoxStats {
  return {
    min: sorted[0]!,
    q1: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q3: quantile(sorted, 0.75),
    max: sorted[sorted.length - 1]!,
  };
}

/**
 * At most `max` values of ascending `sorted`, at evenly spaced ranks (first and last included), so a strip plot of
 * thousands of projects keeps its range and shape without thousands of marks.
 */
export function evenSample(sorted: readonly number[], max: number): number[] {
  if (sorted.length <= max) return [...sorted];
  if (max <= 1) return sorted.slice(0, max);
  return Array.from({ length: max }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (max - 1))]!);
}
