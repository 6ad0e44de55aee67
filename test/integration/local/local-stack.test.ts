import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../../bin/local/table.ts';
import { migrateDeliveryLog } from '../../../bin/migrate-delivery-log.ts';
import { makeDocumentClient } from '../../../shared/platform/clients/dynamodb.ts';
import { call, localStore, stackMacs } from '../../support/api.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ensureBootstrapWorkspace } from '../../../bin/local/stack.ts';

describe('local stack', () => {
  it('writes stack.json with the base URL and the bootstrap workspace key, which works', async () => {
    const stackJson = JSON.parse(readFileSync(join(inject('localDir'), 'stack.json'), 'utf8'));
    expect(stackJson).toMatchObject({
      baseUrl: inject('stack').baseUrl,
      workspaceId: expect.stringMatching(/^ws_/),
      apiKey: expect.stringMatching(/^sk_live_/),
    });
    expect((await call('GET', '/api/v1/projects', { token: stackJson.apiKey })).status).toBe(200);
  });

  it('re-issues a bootstrap key of a form from before keyed checksums on its next start, and keeps a current one', async () => {
    // Prepare: a bootstrap.json whose key is of the unkeyed CRC32 form, as a stack started before the upgrade left it
    const dir = mkdtempSync(join(tmpdir(), 'bootstrap-'));
    const { store } = localStore();
    const macs = await stackMacs();
    const oldKey = `sk_live_q3Fh_yT8u-Zk2LmN7pR0sW5vX9aBcDeGiJoQxY1z4E60Q9SeQ${inject('stack').workspaceId.slice(3)}`;
    writeFileSync(join(dir, 'bootstrap.json'), JSON.stringify({ workspaceId: inject('stack').workspaceId, apiKey: oldKey }));
    // Act
    const reissued = await ensureBootstrapWorkspace(store, dir, macs);
    const kept = await ensureBootstrapWorkspace(store, dir, macs);
    // Assess
    expect(reissued.apiKey).not.toBe(oldKey);
    expect(reissued.apiKey).toHaveLength(8 + 43 + 8 + 26);
    expect(kept).toEqual(reissued);
    expect(JSON.parse(readFileSync(join(dir, 'bootstrap.json'), 'utf8'))).toEqual(reissued);
    expect((await call('GET', '/api/v1/projects', { token: reissued.apiKey })).status).toBe(200);
  });

  it('makes the local keyring master key under LOCAL_DIR, readable by its owner only', () => {
    const file = statSync(join(inject('localDir'), 'master.key'));
    expect(file.size).toBe(32);
    expect(file.mode & 0o777).toBe(0o600);
  });

  it('brings a table from before the delivery log index up to date: adds GSI3 and GSI4 once, and its deliveries move into GSI3', async () => {
    const endpoint = inject('stack').dynamodbEndpoint;
    const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const tableName = `upgrade-${Date.now()}`;
    const key = (name: string) => [
      { AttributeName: `${name}PK`, KeyType: 'HASH' as const },
      { AttributeName: `${name}SK`, KeyType: 'RANGE' as const },
    ];
    // The table as the stack made it before GSI3.
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK'].map((AttributeName) => ({
          AttributeName,
          AttributeType: 'S',
        })),
        GlobalSecondaryIndexes: ['GSI1', 'GSI2'].map((IndexName) => ({
          IndexName,
          KeySchema: key(IndexName),
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
    const doc = makeDocumentClient({ endpoint });
    const old = { PK: 'WS#ws_1#WHD', SK: 'whd_1', GSI1PK: 'WHE#we_1', GSI1SK: 'whd_1', type: 'WebhookDelivery', status: 'pending' };
    await doc.send(new PutCommand({ TableName: tableName, Item: old }));
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { PK: 'WS#ws_1', SK: 'EKEY#env#A', GSI1PK: 'SECRETS#ws_1', GSI1SK: 'sec_1', type: 'EnvironmentSecret' },
      }),
    );

    expect(await ensureTable(client, tableName)).toEqual(['GSI3', 'GSI4']);
    expect(await ensureTable(client, tableName)).toEqual([]);
    expect(await migrateDeliveryLog(doc, tableName)).toEqual({ scanned: 2, moved: 1 });
    const moved = await doc.send(new GetCommand({ TableName: tableName, Key: { PK: old.PK, SK: old.SK } }));
    expect(moved.Item).toEqual({ PK: old.PK, SK: old.SK, GSI3PK: 'WHE#we_1', GSI3SK: 'whd_1', type: 'WebhookDelivery', status: 'pending' });
    // Search's GSI1 items are not deliveries: left alone.
    const secret = await doc.send(new GetCommand({ TableName: tableName, Key: { PK: 'WS#ws_1', SK: 'EKEY#env#A' } }));
    expect(secret.Item).toMatchObject({ GSI1PK: 'SECRETS#ws_1' });
    client.destroy();
  });
});
