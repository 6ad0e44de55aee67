import type { Logger } from '../../platform/logger.ts';
import type { DeliveryFanoutStore } from '../deliveries/delivery-pipeline-store.ts';
import { bucketStart, creationOf, LATE_AFTER_MS, ROLLUP_SAFETY_MS, STATS_BUCKET_MS } from './delivery-stats-store.ts';
import type { StatsRollupMessage } from '../deliveries/delivery-message.ts';

/** Buckets a fan-out container remembers having asked for: about an hour of a busy one's, far less than a container's memory. */
const REMEMBERED = 2_000;

/** What the trigger needs: a way to queue a rollup for later, and the log. */
export interface StatsRollupTriggerDeps {
  enqueue: (message: StatsRollupMessage, at: number) => Promise<void>;
  log: Logger;
}

/**
 * Asks for the statistics rollup of every bucket the fan-out makes deliveries in (shared/webhooks/stats/stats-rollup.ts):
 * one delayed message per workspace and bucket, visible once the bucket can be rolled up (its end, the cutoff and the
 * safety margin). A container asks once per bucket; another container asking too costs the worker a read (the
 * second rollup finds the watermark past the bucket). A message that cannot be sent is asked for again with the next
 * delivery of the bucket, and failing that the next bucket's rollup covers this one (it rolls up from the watermark).
 */
export function makeStatsRollupTrigger(deps: StatsRollupTriggerDeps) {
  const asked = new Set<string>();
  let waiting = new Map<string, StatsRollupMessage>();

  /** Notes a delivery of `workspaceId` created at `createdAt` (epoch ms). */
  function note(workspaceId: string, createdAt: number): void {
    const rollupUntil = bucketStart(createdAt) + STATS_BUCKET_MS;
    const key = `${workspaceId}:${rollupUntil}`;
    if (!asked.has(key)) waiting.set(key, { workspaceId, rollupUntil });
  }

  return {
    note,

    /** Queues a rollup for each bucket noted since the last flush; a failure is logged, not thrown. */
    async flush(): Promise<void> {
      const batch = [...waiting];
      waiting = new Map();
      await Promise.all(
        batch.map(async ([key, message]) => {
          try {
            // A second past the earliest moment the rollup may take the bucket (SQS delays are whole seconds).
            await deps.enqueue(message, message.rollupUntil + LATE_AFTER_MS + ROLLUP_SAFETY_MS + 1_000);
            asked.add(key);
          } catch (error) {
            deps.log.warn('statistics rollup not queued', { errorName: (error as Error).name });
          }
        }),
      );
      // The oldest first: a Set keeps insertion order.
      for (const key of asked) {
        if (asked.size <= REMEMBERED) break;
        asked.delete(key);
      }
    },

    /** `store` with a `createDelivery` that notes each delivery it is asked to make. */
    watch<S extends Pick<DeliveryFanoutStore, 'createDelivery'>>(store: S): S {
      return {
        ...store,
        createDelivery: (...args: Parameters<DeliveryFanoutStore['createDelivery']>) => {
          note(args[0], creationOf(args[1].id));
          return store.createDelivery(...args);
        },
      };
    },
  };
}
