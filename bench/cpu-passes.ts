// The timing loops the CPU bench's children share (bench/cpu-child.ts, bench/scope-cpu-child.ts).
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { quantile } from './stats.ts';

export type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The median of a list of numbers (nearest rank). */
export const median = (values: number[]) => quantile(values, 0.5)!;

/** Rounds to three decimals. */
export const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** Calls the handler and throws on an unexpected status, so a broken run cannot pass as a fast one. */
export async function invoke(
  handler: Handler,
  event: APIGatewayProxyEventV2,
  context: Context,
  expected: number,
): Promise<APIGatewayProxyStructuredResultV2> {
  const result = await handler(event, context);
  if (result.statusCode !== expected) throw new Error(`${event.routeKey}: ${result.statusCode} ${String(result.body).slice(0, 300)}`);
  return result;
}

export interface Timed {
  cpuMs: number;
  systemMs: number;
  wallMs: number;
}

/** CPU ms and wall ms of `n` sequential calls; the inputs are made before the clock starts. */
export async function pass<T>(n: number, make: (i: number) => T, run: (input: T) => Promise<unknown>): Promise<Timed> {
  const inputs = Array.from({ length: n }, (_, i) => make(i));
  globalThis.gc?.();
  return timed(inputs, run);
}

/** CPU ms (user + system) and wall ms of running `run` over `inputs` one after another. */
export async function timed<T>(inputs: readonly T[], run: (input: T) => Promise<unknown>): Promise<Timed> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const input of inputs) await run(input);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, systemMs: used.system / 1000, wallMs };
}

/**
 * V8's garbage-collection pauses from now on, each with its start on performance.now()'s timeline, so that a pause can
 * be charged to the pass it fell in (`msWithin`). Pauses are reported a little after they happen: `msWithin` waits for
 * the reports of the passes before it.
 */
export function gcPauses() {
  const pauses: { start: number; ms: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ start: entry.startTime, ms: entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    /** The pause time (ms) that started within the intervals ([start, end] of performance.now()). */
    async msWithin(intervals: readonly (readonly [number, number])[]): Promise<number> {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return pauses.filter((p) => intervals.some(([from, to]) => p.start >= from && p.start < to)).reduce((sum, p) => sum + p.ms, 0);
    },
    stop: () => observer.disconnect(),
  };
}
