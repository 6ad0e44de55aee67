import { ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from '../shared/platform/store/conditional.ts';
import { ENTITY, FAILED_DELIVERY_INDEX } from '../shared/platform/store/keys.ts';

/**
 * Operators' one-off migrations of delivery items. Each reads the whole table with Scan (never a request path): about
 * 0.5 read units per 4 KB of the table, and one conditional write (plus its index writes) per delivery it changes;
 * each is safe to interrupt and to run again (an update applies only to an item still in need of it).
 */

/** Every item `filter` picks, each updated by `update` (undefined when it does not apply any more); answers the counts. */
export async function scanAndUpdate(
  doc: DynamoDBDocumentClient,
  tableName: string,
  filter: { expression: string; names: Record<string, string>; values: Record<string, unknown>; projection: string },
  update: (item: Record<string, unknown>) => UpdateCommand,
): Promise<{ scanned: number; updated: number }> {
  let scanned = 0;
  let updated = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: filter.expression,
        ProjectionExpression: filter.projection,
        ExpressionAttributeNames: filter.names,
        ExpressionAttributeValues: filter.values,
        ExclusiveStartKey: startKey,
      }),
    );
    scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      // Undefined when its condition failed: changed meanwhile by another run, or gone (its TTL). Nothing to do.
      if (await sendConditional({ doc, tableName }, update(item))) updated++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { scanned, updated };
}

/**
 * Moves deliveries made before the endpoint delivery log had its own index (GSI3) from GSI1 to it: each such
 * delivery's `GSI1PK`/`GSI1SK` (`WHE#<we_id>`, `<whd_id>`) become its `GSI3PK`/`GSI3SK`, so an endpoint's list shows
 * it again. Run once after deploying the version that added GSI3 (`npm run admin -- deliveries migrate-log`); the
 * local stack runs it when it adds GSI3 to an existing table.
 */
export async function migrateDeliveryLog(doc: DynamoDBDocumentClient, tableName: string): Promise<{ scanned: number; moved: number }> {
  const { scanned, updated } = await scanAndUpdate(
    doc,
    tableName,
    {
      expression: '#type = :delivery AND begins_with(GSI1PK, :endpoint) AND attribute_not_exists(GSI3PK)',
      names: { '#type': 'type' },
      values: { ':delivery': ENTITY.delivery, ':endpoint': 'WHE#' },
      projection: 'PK, SK, GSI1PK, GSI1SK',
    },
    (item) =>
      new UpdateCommand({
        TableName: tableName,
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET GSI3PK = :pk, GSI3SK = :sk REMOVE GSI1PK, GSI1SK',
        ConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
        ExpressionAttributeValues: { ':pk': item.GSI1PK, ':sk': item.GSI1SK },
      }),
  );
  return { scanned, moved: updated };
}

/**
 * Puts failed deliveries made before recoveries into their endpoint's failed list (GSI4, `FAILED_DELIVERY_INDEX`),
 * so `POST /webhooks/{id}/recover` finds them: every delivery failed since then is in it already. Run once after
 * deploying the version that added recoveries (`npm run admin -- deliveries index-failed`); needless 30 days later,
 * when every older delivery has expired.
 */
export async function indexFailedDeliveries(doc: DynamoDBDocumentClient, tableName: string): Promise<{ scanned: number; indexed: number }> {
  const { scanned, updated } = await scanAndUpdate(
    doc,
    tableName,
    {
      expression: '#type = :delivery AND #status = :failed AND attribute_not_exists(GSI4PK)',
      names: { '#type': 'type', '#status': 'status' },
      values: { ':delivery': ENTITY.delivery, ':failed': 'failed' },
      projection: 'PK, SK',
    },
    (item) =>
      new UpdateCommand({
        TableName: tableName,
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: `SET ${FAILED_DELIVERY_INDEX.set}`,
        ConditionExpression: '#status = :failed AND attribute_not_exists(GSI4PK)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed' },
      }),
  );
  return { scanned, indexed: updated };
}
