import { iso, type Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/logger.ts';
import type { StoredDelivery } from '../deliveries/delivery-records.ts';
import type { EndpointReader } from '../endpoints/endpoint-store.ts';
import type { Recovery } from './recovery-store.ts';
import type { RecoveryWorkerStore } from './recovery-worker-store.ts';
import { bucketStart, creationOf } from '../stats/delivery-stats-store.ts';
import { newAttemptToken, type DeliveryMessage, type RecoveryMessage } from '../deliveries/delivery-message.ts';

export interface RecoveryDeps {
  store: Pick<RecoveryWorkerStore, 'getRecovery' | 'failedPage' | 'requeueFailed' | 'advanceRecovery'> &
    Pick<EndpointReader, 'getEndpoint'>;
  /**
   * Takes deliveries created at `createdAt` (epoch ms) and queued again out of the `failed` count of their bucket
   * (the endpoint's statistics), for those whose changes are counted late (the others' bucket is still to be rolled
   * up, and counts them as they end up).
   */
  uncountFailed: (workspaceId: string, endpointId: string, createdAt: number, count: number) => Promise<void>;
  /** Queues attempts for now, ten to a request; answers the indexes of those SQS did not take. */
  enqueueAll: (messages: readonly DeliveryMessage[]) => Promise<number[]>;
  /** Queues the recovery's next step. */
  continueRecovery: (message: RecoveryMessage) => Promise<void>;
  clock: Clock;
  metrics: { recovered(count: number): void };
  log: Logger;
  /** Failed deliveries read and queued a page. @default 100 */
  pageSize?: number;
  /** How long one message runs pages before it hands the rest to the next step's message. @default 15 000 */
  budgetMs?: number;
}

export type RecoveryOutcome = 'done' | 'continued' | 'stopped' | 'dropped' | 'stalled';

/** Deliveries queued again at once: enough to keep DynamoDB busy, few enough not to be throttled. */
const REQUEUES_IN_FLIGHT = 10;

/** Runs `task` over `items`, at most `limit` at a time; answers the results in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * Runs a recovery of an endpoint's failed deliveries, one step per queue message: page after page of the endpoint's
 * failed list in the span (oldest first), each delivery queued again by a conditional swap from `failed` to `pending`
 * (so none is queued twice, whoever runs the page) and then sent ten to a request; the recovery's cursor moves on
 * after each page, conditioned on the step the message names. After `budgetMs` the rest goes to the next step's
 * message, so no invocation runs into the worker's timeout however many deliveries match. A message that finds the
 * recovery elsewhere (a duplicate, a stale step) does nothing. What can be lost is covered: a delivery swapped but
 * not sent is on the sweeper's index, due now; a next step's message that was not sent leaves the recovery on the
 * sweeper's index, which sends it again.
 */
export function makeRecoveryRunner(deps: RecoveryDeps) {
  const { store, clock } = deps;
  const pageSize = deps.pageSize ?? 100;
  const budgetMs = deps.budgetMs ?? 15_000;

  /** Queues one page's failed deliveries again; answers those it moved. */
  async function requeuePage(ws: string, recovery: Recovery, ids: readonly string[]): Promise<StoredDelivery[]> {
    const now = iso(clock.now());
    const moved = (
      await mapLimit(ids, REQUEUES_IN_FLIGHT, (id) => store.requeueFailed(ws, id, recovery.endpointId, newAttemptToken(), now))
    ).filter((delivery): delivery is StoredDelivery => delivery !== undefined);
    if (moved.length === 0) return moved;
    const refused = await deps.enqueueAll(moved.map((d) => ({ workspaceId: ws, deliveryId: d.id, attemptToken: d.attemptToken! })));
    // Each one refused is pending and due now on the sweeper's index, which queues it after its grace period.
    if (refused.length > 0) deps.log.warn('recovery could not queue every delivery; the sweeper will', { refused: refused.length });
    const byBucket = new Map<number, { createdAt: number; count: number }>();
    for (const delivery of moved.filter((d) => d.lateCounted)) {
      const start = bucketStart(creationOf(delivery.id));
      const bucket = byBucket.get(start) ?? { createdAt: start, count: 0 };
      bucket.count++;
      byBucket.set(start, bucket);
    }
    await Promise.all([...byBucket.values()].map((b) => deps.uncountFailed(ws, recovery.endpointId, b.createdAt, b.count)));
    deps.metrics.recovered(moved.length);
    return moved;
  }

  return async (message: RecoveryMessage): Promise<RecoveryOutcome> => {
    const ws = message.workspaceId;
    let recovery = await store.getRecovery(ws, message.recoveryId);
    if (!recovery || recovery.status !== 'running' || recovery.step !== message.step) return 'dropped';
    const started = Date.now();
    for (;;) {
      const endpoint = await store.getEndpoint(ws, recovery.endpointId);
      if (!endpoint?.enabled) {
        // Paused, switched off or deleted meanwhile: what is left stays failed.
        await store.advanceRecovery(ws, recovery, { cursor: recovery.cursor, queued: 0, status: 'stopped', now: iso(clock.now()) });
        return 'stopped';
      }
      const page = await store.failedPage(ws, recovery, pageSize);
      const moved = await requeuePage(ws, recovery, page.ids);
      const status: Recovery['status'] = page.more ? 'running' : 'done';
      const next: { cursor: string | null; queued: number; status: Recovery['status']; now: string } = {
        cursor: page.last ?? recovery.cursor,
        queued: moved.length,
        status,
        now: iso(clock.now()),
      };
      // Another runner of this step moved it on first: it carries on, this one stops (nothing was queued twice).
      if (!(await store.advanceRecovery(ws, recovery, next))) return 'dropped';
      recovery = {
        ...recovery,
        cursor: next.cursor,
        queued: recovery.queued + moved.length,
        step: recovery.step + 1,
        status: next.status,
        updatedAt: next.now,
      };
      if (next.status === 'done') return 'done';
      if (Date.now() - started < budgetMs) continue;
      try {
        await deps.continueRecovery({ workspaceId: ws, recoveryId: recovery.id, step: recovery.step });
        return 'continued';
      } catch (error) {
        deps.log.warn('recovery could not queue its next step; the sweeper will', {
          recoveryId: recovery.id,
          errorName: (error as Error).name,
        });
        return 'stalled';
      }
    }
  };
}
