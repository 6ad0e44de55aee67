import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import type { StoredDelivery } from '../../shared/webhooks/deliveries/delivery-store.ts';
import { ENTITY, FAILED_DELIVERY_INDEX, gsi3, keys } from '../../shared/platform/store/keys.ts';

/**
 * Puts `count` deliveries of `endpointId` that failed all six attempts, created from `start` one millisecond apart,
 * as the pipeline leaves them: in the endpoint's log (GSI3) and its failed list (GSI4). Eight BatchWriteItems at a
 * time. For tests and the bench (no test runner here).
 */
export async function putFailedDeliveries(
  doc: DynamoDBDocumentClient,
  tableName: string,
  workspaceId: string,
  endpointId: string,
  count: number,
  start: number,
): Promise<StoredDelivery[]> {
  const made = Array.from({ length: count }, (_, i): StoredDelivery => {
    const at = new Date(start + i).toISOString();
    // Not newId: its ids are monotonic within a process, so an earlier time after a later one would get the later one.
    const eventId = `evt_${ulid(start + i)}`;
    return {
      id: `whd_${ulid(start + i)}`,
      endpointId,
      eventId,
      eventType: 'service.secret.delete',
      status: 'failed',
      attempts: 6,
      statusCode: 503,
      lastError: 'HTTP 503',
      nextRetryAt: null,
      createdAt: at,
      updatedAt: at,
      attemptLog: Array.from({ length: 6 }, (_, a) => ({ attempt: a + 1, at, statusCode: 503, durationMs: 5, error: 'HTTP 503' })),
      body: JSON.stringify({ id: eventId, type: 'service.secret.delete', account: 'acc_x', occurredAt: at, data: {} }),
      attemptToken: null,
      manual: false,
    };
  });
  const items = made.map(({ attemptToken: _t, ...d }) => ({
    ...keys.delivery(workspaceId, d.id),
    ...gsi3.endpointDelivery(endpointId, d.id),
    ...FAILED_DELIVERY_INDEX.keys(endpointId, d.id),
    type: ENTITY.delivery,
    workspaceId,
    ...d,
  }));
  const batches = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  for (let i = 0; i < batches.length; i += 8) {
    await Promise.all(
      batches
        .slice(i, i + 8)
        .map((batch) =>
          doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: batch.map((Item) => ({ PutRequest: { Item } })) } })),
        ),
    );
  }
  return made;
}
