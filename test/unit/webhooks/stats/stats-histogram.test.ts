import { describe, expect, it } from 'vitest';
import {
  binRange,
  DURATION_BINS,
  DURATION_BOUNDS_MS,
  durationBin,
  percentileOf,
} from '../../../../shared/webhooks/stats/stats-histogram.ts';

/** A histogram with the given counts in the given bins, none elsewhere. */
function histogram(counts: Record<number, number>): number[] {
  return Array.from({ length: DURATION_BINS }, (_, bin) => counts[bin] ?? 0);
}

describe('duration histogram: bins', () => {
  it('has 15 bins: bounds rising up to the 10 s attempt timeout, then one for anything longer', () => {
    expect(DURATION_BINS).toBe(15);
    expect(DURATION_BOUNDS_MS.at(-1)).toBe(10_000);
    expect([...DURATION_BOUNDS_MS].sort((a, b) => a - b)).toEqual([...DURATION_BOUNDS_MS]);
    expect(new Set(DURATION_BOUNDS_MS).size).toBe(DURATION_BOUNDS_MS.length);
  });

  it.each([
    [0, 0],
    [3.7, 0],
    [10, 0],
    [10.01, 1],
    [25, 1],
    [26, 2],
    [999, 8],
    [1_000, 8],
    [9_999, 13],
    [10_000, 13],
    [10_001, 14],
    [60_000, 14],
  ])('a duration of %d ms goes in bin %d (upper bounds inclusive; the last bin past 10 s)', (ms, bin) => {
    expect(durationBin(ms)).toBe(bin);
  });

  it('each bin covers the durations that go in it: from the previous bound to its own', () => {
    for (let bin = 0; bin < DURATION_BOUNDS_MS.length; bin++) {
      const { lower, upper } = binRange(bin);
      expect(durationBin(upper)).toBe(bin);
      if (bin > 0) expect(durationBin(lower)).toBe(bin - 1);
    }
    expect(binRange(DURATION_BINS - 1)).toEqual({ lower: 10_000, upper: 10_000 });
  });
});

describe('duration histogram: percentiles', () => {
  it('is null when nothing was counted, or only negative counts', () => {
    expect(percentileOf(histogram({}), 0.5)).toBeNull();
    expect(percentileOf([], 0.95)).toBeNull();
    expect(percentileOf(histogram({ 3: -2 }), 0.5)).toBeNull();
  });

  it('interpolates linearly inside the bin the rank falls in', () => {
    // Bin 3 is 50 to 100 ms: four durations there, spread evenly, put the median halfway (rank 2 of 4).
    expect(percentileOf(histogram({ 3: 4 }), 0.5)).toBe(75);
    // One in bin 0 (0 to 10), three in bin 3: the median (rank 2) is a third of the way into bin 3.
    expect(percentileOf(histogram({ 0: 1, 3: 3 }), 0.5)).toBeCloseTo(50 + 50 / 3, 10);
    // The 95th of 20 (rank 19): the last bin's 19th - 10 = 9th of 10 in bin 8 (600 to 1000 ms).
    expect(percentileOf(histogram({ 2: 10, 8: 10 }), 0.95)).toBe(600 + 400 * 0.9);
  });

  it("skips empty bins, and a rank on a bin boundary is that bin's upper bound", () => {
    expect(percentileOf(histogram({ 1: 2, 9: 2 }), 0.5)).toBe(25);
    expect(percentileOf(histogram({ 1: 2, 9: 2 }), 1)).toBe(1_500);
  });

  it('answers a value within the bins that hold durations, for any quantile', () => {
    const counts = histogram({ 2: 5, 6: 1, 11: 3 });
    for (const q of [0, 0.01, 0.25, 0.5, 0.75, 0.95, 0.99, 1]) {
      const value = percentileOf(counts, q)!;
      expect(value).toBeGreaterThanOrEqual(binRange(2).lower);
      expect(value).toBeLessThanOrEqual(binRange(11).upper);
    }
  });

  it('grows with the quantile', () => {
    const counts = histogram({ 0: 3, 4: 7, 7: 2, 12: 1, 14: 1 });
    const values = [0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.99].map((q) => percentileOf(counts, q)!);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
  });

  it('answers the overflow bin as its lower bound, the 10 s timeout: it has no upper one', () => {
    expect(percentileOf(histogram({ 14: 3 }), 0.5)).toBe(10_000);
    expect(percentileOf(histogram({ 0: 1, 14: 19 }), 0.95)).toBe(10_000);
  });
});
