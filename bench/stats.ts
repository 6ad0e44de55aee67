/** The q-quantile (0..1) of a list of numbers, by nearest rank; null for an empty list. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Rounds to two decimals (table and JSON friendly). */
export const round2 = (value: number | null): number | null => (value === null ? null : Math.round(value * 100) / 100);

/**
 * Runs `operation` from `concurrency` loops for `durationMs` and answers the latencies (ms) and requests per
 * second. Loops stop by themselves once the time is up.
 */
export async function runLoad(operation: (i: number) => Promise<void>, concurrency: number, durationMs: number) {
  const latencies: number[] = [];
  const started = performance.now();
  let issued = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - started < durationMs) {
        const t = performance.now();
        await operation(issued++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    latencies,
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p95: quantile(latencies, 0.95),
    p99: quantile(latencies, 0.99),
  };
}
