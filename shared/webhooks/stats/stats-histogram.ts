/**
 * The fixed histogram of attempt durations that an endpoint's hourly delivery statistics keep (one counter per bin),
 * and the percentiles read back from it. Pure: the stores and the counting (stats-counting.ts) fill bins by
 * `durationBin`, the statistics service reads `percentileOf`.
 */

/**
 * Upper bounds (inclusive, ms) of the bounded bins, roughly logarithmic up to the 10 s attempt timeout; one more bin,
 * the last, holds anything longer (a timeout and its overhead). Changing them changes what stored counters mean:
 * only ever append a bound, and only before the overflow bin holds anything worth keeping.
 */
export const DURATION_BOUNDS_MS = [10, 25, 50, 100, 150, 250, 400, 600, 1_000, 1_500, 2_500, 4_000, 6_000, 10_000] as const;

/** How many bins there are: the bounded ones and the overflow bin. */
export const DURATION_BINS = DURATION_BOUNDS_MS.length + 1;

/** The bin of a duration: the first whose upper bound it does not pass (the overflow bin past the last). */
export function durationBin(durationMs: number): number {
  const bin = DURATION_BOUNDS_MS.findIndex((bound) => durationMs <= bound);
  return bin === -1 ? DURATION_BOUNDS_MS.length : bin;
}

/** The range a bin covers, in ms: the overflow bin has no upper bound, so it answers its lower one for both. */
export function binRange(bin: number): { lower: number; upper: number } {
  const lower = bin === 0 ? 0 : DURATION_BOUNDS_MS[bin - 1]!;
  return { lower, upper: DURATION_BOUNDS_MS[bin] ?? lower };
}

/**
 * The `quantile` (0 to 1: 0.5 for the median) of the durations counted in `counts` (one count per bin), interpolated
 * linearly inside the bin it falls in, as if that bin's durations were spread evenly over its range; null when
 * nothing was counted. A negative count (none is ever written) counts as none.
 */
export function percentileOf(counts: readonly number[], quantile: number): number | null {
  const clean = counts.map((count) => Math.max(0, count));
  const total = clean.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.min(1, Math.max(0, quantile)) * total;
  let below = 0;
  for (const [bin, count] of clean.entries()) {
    if (count > 0 && below + count >= rank) {
      const { lower, upper } = binRange(bin);
      return lower + ((upper - lower) * (rank - below)) / count;
    }
    below += count;
  }
  // Unreachable: `rank` never exceeds `total`.
  return binRange(clean.length - 1).upper;
}
