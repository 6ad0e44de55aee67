import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from '../../platform/prefetch.ts';
import { sendConditional } from '../../platform/store/conditional.ts';
import type { StoredDelivery } from '../deliveries/delivery-records.ts';
import type { Recovery } from './recovery-store.ts';
import { inWorkspace, requeueChange, updateDelivery } from '../deliveries/delivery-shared-store.ts';
import { isLate, recordLateStats } from '../stats/delivery-stats-store.ts';
import { FAILED_DELIVERY_INDEX, gsi2, keys, patterns } from '../../platform/store/keys.ts';
import { queryInput } from '../../platform/store/query.ts';
import { getItem } from '../../platform/store/reads.ts';
import { send, type Db } from '../../platform/store/send.ts';

/** What the delivery worker does to run a recovery, page by page. */
export function makeRecoveryWorkerStore(db: Db) {
  return {
    async getRecovery(workspaceId: string, recoveryId: string): Promise<Recovery | undefined> {
      return (await getItem(db, keys.deliveryRecovery(workspaceId, recoveryId))) as Recovery | undefined;
    },

    /** Up to `limit` failed deliveries of the endpoint in the span after `cursor` (oldest first), as ids. */
    async failedPage(
      workspaceId: string,
      recovery: Pick<Recovery, 'endpointId' | 'fromId' | 'toId' | 'cursor'>,
      limit: number,
    ): Promise<{ ids: string[]; last: string | null; more: boolean }> {
      const pattern = patterns.failedDeliveriesOfEndpoint(recovery.endpointId);
      const input = queryInput(db, pattern, { skBetween: [recovery.fromId, recovery.toId] });
      const startKey = recovery.cursor
        ? { ...keys.delivery(workspaceId, recovery.cursor), ...FAILED_DELIVERY_INDEX.keys(recovery.endpointId, recovery.cursor) }
        : undefined;
      const out = await send<{ Items?: ItemKey[]; LastEvaluatedKey?: Record<string, unknown> }>(
        db,
        new QueryCommand({ ...input, ExclusiveStartKey: startKey, Limit: limit }),
      );
      const items = out.Items ?? [];
      const own = inWorkspace(workspaceId, items);
      return { ids: own.map((key) => key.SK), last: items.at(-1)?.SK ?? null, more: out.LastEvaluatedKey !== undefined };
    },

    /**
     * Queues a failed delivery of the endpoint again: pending, one attempt (`manual`), a fresh token, due now on
     * the sweeper's index (a lost message is sent anyway), out of the failed list. Only while it is failed, so no
     * delivery is queued twice; answers it as it now is, or undefined when it was not failed. After its bucket's
     * cutoff it leaves its state for the rollup (`lateCounted`: the caller takes it out of `failed` as a late change).
     */
    async requeueFailed(
      workspaceId: string,
      deliveryId: string,
      endpointId: string,
      token: string,
      now: string,
    ): Promise<StoredDelivery | undefined> {
      const change = requeueChange(
        deliveryId,
        { token, now, late: isLate(deliveryId, Date.parse(now)) },
        { condition: '#status = :failed AND endpointId = :endpoint', values: { ':failed': 'failed', ':endpoint': endpointId } },
      );
      return updateDelivery(db, workspaceId, deliveryId, change);
    },

    /**
     * Takes `count` deliveries created at `createdAt` (epoch ms) out of the `failed` count of their bucket and hour:
     * deliveries `requeueFailed` moved after their bucket's cutoff (`lateCounted`), a late change.
     */
    uncountFailed(workspaceId: string, endpointId: string, createdAt: number, count: number): Promise<void> {
      return recordLateStats(db, workspaceId, endpointId, createdAt, { failed: -count });
    },

    /**
     * Moves the recovery on from `step` (only if it is still there: a second runner of the same step loses): its
     * cursor, the count, and `done` or `stopped` at the end (off the sweeper's index). Answers whether it moved. The
     * count is the winners': what a losing runner queued (sent all the same) is not added to it.
     */
    async advanceRecovery(
      workspaceId: string,
      recovery: Recovery,
      next: { cursor: string | null; queued: number; status: Recovery['status']; now: string },
    ): Promise<boolean> {
      const running = next.status === 'running';
      const index = gsi2.runningRecovery(workspaceId, recovery.id, next.now);
      const out = await sendConditional(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.deliveryRecovery(workspaceId, recovery.id),
          UpdateExpression: `SET #cursor = :cursor, queued = queued + :queued, step = :next, #status = :status, updatedAt = :now${running ? ', GSI2SK = :gsk' : ' REMOVE GSI2PK, GSI2SK'}`,
          ConditionExpression: 'step = :step AND #status = :running',
          ExpressionAttributeNames: { '#cursor': 'cursor', '#status': 'status' },
          ExpressionAttributeValues: {
            ':cursor': next.cursor,
            ':queued': next.queued,
            ':next': recovery.step + 1,
            ':status': next.status,
            ':now': next.now,
            ':step': recovery.step,
            ':running': 'running',
            ...(running ? { ':gsk': index.GSI2SK } : {}),
          },
        }),
      );
      return out !== undefined;
    },
  };
}

export type RecoveryWorkerStore = ReturnType<typeof makeRecoveryWorkerStore>;
