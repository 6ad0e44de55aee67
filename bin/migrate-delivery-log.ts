import { ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from '../shared/store/conditional.ts';
import { ENTITY } from '../shared/store/keys.ts';

/**
 * Moves deliveries made before the endpoint delivery log had its own index (GSI3) from GSI1 to it: each such
 * delivery's `GSI1PK`/`GSI1SK` (`WHE#<we_id>`, `<whd_id>`) become its `GSI3PK`/`GSI3SK`, so an endpoint's list shows
 * it again. Run once after deploying the version that added GSI3 (`npm run admin -- deliveries migrate-log`); the
 * local stack runs it when it adds GSI3 to an existing table. Safe to run again or to interrupt: each move is a
 * conditional update of one delivery that only applies while it still carries the GSI1 keys.
 *
 * It reads the whole table with Scan (an operator's one-off, never a request path): about 0.5 read units per 4 KB
 * of the table, and one write (plus the index writes) per delivery moved.
 */
export async function migrateDeliveryLog(doc: DynamoDBDocumentClient, tableName: string): Promise<{ scanned: number; moved: number }> {
  let scanned = 0;
  let moved = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#type = :delivery AND begins_with(GSI1PK, :endpoint) AND attribute_not_exists(GSI3PK)',
        ProjectionExpression: 'PK, SK, GSI1PK, GSI1SK',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':delivery': ENTITY.delivery, ':endpoint': 'WHE#' },
        ExclusiveStartKey: startKey,
      }),
    );
    scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      // Undefined when its condition failed: moved meanwhile by another run, or gone (its TTL). Nothing to do.
      const updated = await sendConditional(
        { doc, tableName },
        new UpdateCommand({
          TableName: tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: 'SET GSI3PK = :pk, GSI3SK = :sk REMOVE GSI1PK, GSI1SK',
          ConditionExpression: 'GSI1PK = :pk AND GSI1SK = :sk',
          ExpressionAttributeValues: { ':pk': item.GSI1PK, ':sk': item.GSI1SK },
        }),
      );
      if (updated) moved++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { scanned, moved };
}
