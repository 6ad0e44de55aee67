import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENTITY, gsi2, keys } from '../shared/platform/store/keys.ts';
import { scanAndUpdate } from './migrate-delivery-log.ts';

/**
 * Puts every workspace made before the workspaces list (GSI2 `WORKSPACES`, `patterns.allWorkspaces`) into it: each
 * workspace item (`WS#<ws>` / `#META`) without `GSI2PK` gets the keys `putWorkspace` gives a new one
 * (`gsi2.workspace`), so the audit digester, which walks that list and never scans, digests its audit log. Run once
 * after deploying the version with audit digests (`npm run admin -- workspaces migrate-list`); until then an older
 * workspace gets no digest. One Scan of the table (about 0.5 read units per 4 KB stored) and one conditional update
 * per workspace it adds; safe to interrupt and to run again (a second run adds nothing).
 */
export async function migrateWorkspacesList(doc: DynamoDBDocumentClient, tableName: string): Promise<{ scanned: number; added: number }> {
  const { scanned, updated } = await scanAndUpdate(
    doc,
    tableName,
    {
      expression: '#type = :workspace AND SK = :meta AND attribute_not_exists(GSI2PK)',
      names: { '#type': 'type' },
      values: { ':workspace': ENTITY.workspace, ':meta': keys.workspace('').SK },
      projection: 'PK, SK',
    },
    (item) => {
      // The id from the item's own key (`WS#<ws>`), as putWorkspace built that key from it.
      const listed = gsi2.workspace(String(item.PK).slice(keys.workspace('').PK.length));
      return new UpdateCommand({
        TableName: tableName,
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk',
        // Still there and still unlisted: a workspace listed meanwhile (by another run) or gone is left as it is.
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(GSI2PK)',
        ExpressionAttributeValues: { ':pk': listed.GSI2PK, ':sk': listed.GSI2SK },
      });
    },
  );
  return { scanned, added: updated };
}
