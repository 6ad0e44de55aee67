/**
 * How many samples the bench takes of each timed figure: the default run takes what its budgets need for a stable
 * median (issue 52: `npm run bench` within 10 minutes on a 2-vCPU machine); `BENCH_THOROUGH=1` takes the longer,
 * more repeated measurement the bench took before (about 40 minutes there). Only the number of samples changes, never
 * what a figure is: the same medians of the same ratios, in the same units, billed the same way.
 */
export interface Effort {
  /** Interleaved import pairs of each function against its SDK floor: the budget's import ratio (bench/bundles.ts). */
  importPairs: number;
  /**
   * Pairs of the side figures, which no budget reads: the import ratio with every chunk imported, and the import
   * ratios of the floors with the customer's libraries and with the request pipeline (bench/mandated.ts; their
   * cold-start bytes, the budget, take no pairs).
   */
  sidePairs: number;
  /** The CPU bench's measured requests per round and side, its warm-up, and its rounds (bench/cpu.ts). */
  cpu: { requests: number; warmup: number; rounds: number };
  /** Failed deliveries a recovery through the stack runs (bench/webhook-operations.ts): its cost is per delivery. */
  recoveredDeliveries: number;
  /** Failed deliveries of the large recovery (the route's count, the steps run in the bench's process). */
  largeRecovery: number;
  /** Milliseconds of each operation's load test (bench/load.ts); BENCH_LOAD_MS overrides it. */
  loadMs: number;
}

/** The default: every figure a budget reads, with samples enough for its median to hold between runs. */
const DEFAULT: Effort = {
  // A budget figure: kept at the bench's 31 (at 21 a ratio moved by up to ±0.03 between runs).
  importPairs: 31,
  // No budget reads them: 3 pairs keep their order of magnitude (9 took 90 s more of the bundles phase).
  sidePairs: 3,
  // Handler and floor alternate every 5 requests within a round, so a round of 200 is as fair as one of 500; more
  // rounds of fewer requests give the median more to choose from.
  cpu: { requests: 200, warmup: 100, rounds: 4 },
  // Three of the recovery's pages of 100: its DynamoDB and SQS work per delivery within 3% of 1,000's (the worker's
  // billed time, a timing, moved 204 -> 276 ms a delivery between two runs).
  recoveredDeliveries: 300,
  // A step stops at its time budget and hands the rest to the next: at 10,000 a run took 4 steps, the longest 15.4 s;
  // 5,000 still fills its first step to the budget, which is what the figure is for (the worker's 30 s timeout).
  largeRecovery: 5000,
  loadMs: 1500,
};

/** `BENCH_THOROUGH=1`: the counts of the bench before issue 52. */
const THOROUGH: Effort = {
  importPairs: 31,
  sidePairs: 31,
  cpu: { requests: 500, warmup: 200, rounds: 3 },
  recoveredDeliveries: 1000,
  largeRecovery: 10_000,
  loadMs: 3000,
};

/** The effort this run takes, from `BENCH_THOROUGH`. */
export function benchEffort(env: NodeJS.ProcessEnv = process.env): Effort {
  return env.BENCH_THOROUGH === '1' ? THOROUGH : DEFAULT;
}
