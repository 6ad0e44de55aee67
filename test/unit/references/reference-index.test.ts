import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import type { Pager } from '../../../shared/platform/store/pager.ts';
import type { SecretRecord } from '../../../shared/secrets/secret-record.ts';
import { makeSecretStore } from '../../../shared/secrets/secret-store.ts';
import { makePurgeStore } from '../../../shared/secrets/purge-store.ts';
import { referenceEdgeItems } from '../../../shared/references/index.ts';
import { makeReferenceIndexStore } from '../../../shared/references/reference-index.ts';

/**
 * The reverse index of secret references (shared/secrets/reference-index.ts): the edges a write's transaction
 * carries (only the added and removed targets), what a purge removes, and how a reader confirms edges by heads.
 */

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);
const db = { doc, tableName: 'T' };

const WS = 'ws_1';
const SEALED = { ciphertext: 'Y2lwaGVy', iv: 'aXY=', tag: 'dGFn', encryptedDataKey: 'ZGs=' };
const audit: AuditEntry = {
  id: 'aud_1',
  action: 'secret.rotate',
  actorSub: 'key_1',
  target: 'sec_1',
  metadata: {},
  createdAt: '2026-01-02T00:00:00.000Z',
};
const record = (overrides: Partial<SecretRecord> = {}): SecretRecord => ({
  id: 'sec_1',
  key: 'DB_URL',
  projectId: 'proj_1',
  projectSlug: 'app',
  environmentId: 'env_1',
  envSlug: 'prod',
  currentVersion: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  ...overrides,
});
const store = makeSecretStore(db, { queryPage: vi.fn() } as unknown as Pager);

/** The sort keys of the reverse index items the one transaction carried, each as `<operation> <SK>`. */
function sentEdges(): string[] {
  const [call] = dynamodb.commandCalls(TransactWriteCommand);
  return call!.args[0].input.TransactItems!.flatMap((item) => {
    const [operation, body] = Object.entries(item)[0]! as [string, { Item?: { SK: string }; Key?: { SK: string } }];
    const sk = (body.Item ?? body.Key)!.SK;
    return sk.startsWith('REFBY#') ? [`${operation} ${sk}`] : [];
  });
}

/** Writes version 2 of sec_1 over a head whose current references are `before`, making `after` current. */
async function write(before: string[] | undefined, after: string[] | undefined) {
  const secret = { ...record({ currentVersion: 2, ...(after && { references: after }) }), sealed: SEALED };
  const version = { number: 2, sealed: SEALED, createdBy: 'key_1', ...(after && { references: after }) };
  await store.writeSecretVersion(WS, secret, record(before && { references: before }), version, audit);
}

beforeEach(() => {
  dynamodb.reset();
  dynamodb.on(TransactWriteCommand).resolves({});
});

describe('reverse index edges in the write transaction', () => {
  it('puts one edge per target of a new value, keyed by the target path, unconditionally', async () => {
    // Act
    await write(undefined, ['app/prod/A', 'lib/dev/B']);
    // Assess
    expect(sentEdges()).toEqual(['Put REFBY#app/prod/A#SEC#sec_1', 'Put REFBY#lib/dev/B#SEC#sec_1']);
    const [call] = dynamodb.commandCalls(TransactWriteCommand);
    const put = call!.args[0].input.TransactItems!.find((item) => item.Put?.Item?.SK === 'REFBY#app/prod/A#SEC#sec_1')!.Put!;
    expect(put).toEqual({
      TableName: 'T',
      Item: { PK: 'WS#ws_1', SK: 'REFBY#app/prod/A#SEC#sec_1', type: 'SecretReference', secretId: 'sec_1', targetPath: 'app/prod/A' },
    });
  });

  it('writes only the added and removed targets against the head it replaces', async () => {
    // Act
    await write(['app/prod/A', 'app/prod/KEPT'], ['app/prod/KEPT', 'app/prod/NEW']);
    // Assess
    expect(sentEdges()).toEqual(['Put REFBY#app/prod/NEW#SEC#sec_1', 'Delete REFBY#app/prod/A#SEC#sec_1']);
  });

  it('deletes every edge when the new current value has no references', async () => {
    // Act
    await write(['app/prod/A'], undefined);
    // Assess
    expect(sentEdges()).toEqual(['Delete REFBY#app/prod/A#SEC#sec_1']);
  });

  it('adds no item for a secret without references (its transaction is as before)', async () => {
    // Act
    await write(undefined, undefined);
    // Assess
    expect(sentEdges()).toEqual([]);
    expect(dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems).toHaveLength(5);
  });

  it('leaves removed edges stale when they do not fit in the transaction, never the added ones', () => {
    // Act
    const items = referenceEdgeItems(db, WS, 'sec_1', ['a/b/OLD1', 'a/b/OLD2'], ['a/b/NEW'], 2);
    // Assess
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['Put']);
  });
});

describe('purge', () => {
  it("deletes the purged secret's edges with its record, at its head's key or (before v1.4) in its partition", async () => {
    // Prepare
    const record = { head: { environmentId: 'env_1', references: ['app/prod/A'] }, deletedAt: 'd1' };
    dynamodb
      .on(GetCommand)
      .resolvesOnce({ Item: { ...keys.secretHead(WS, 'sec_1'), type: 'SecretPurge', ...record } })
      .resolvesOnce({})
      .resolvesOnce({ Item: { ...keys.secretPurge(WS, 'sec_1'), type: 'SecretPurge', ...record } });
    dynamodb.on(QueryCommand).resolves({ Items: [] });
    // Act
    await makePurgeStore(db).purgeSecretVersions(WS, 'sec_1');
    await makePurgeStore(db).purgeSecretVersions(WS, 'sec_1');
    // Assess
    const deleted = dynamodb
      .commandCalls(TransactWriteCommand)
      .map((call) => call.args[0].input.TransactItems!.map((item) => item.Delete!.Key!.SK));
    expect(deleted).toEqual([
      expect.arrayContaining(['REFBY#app/prod/A#SEC#sec_1', 'SEC#sec_1']),
      expect.arrayContaining(['REFBY#app/prod/A#SEC#sec_1', '#PURGE']),
    ]);
  });
});

describe('readers', () => {
  it('keep only dependents whose head still lists the path (stale and deleted ones dropped)', async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({ Items: [{ secretId: 'sec_a' }, { secretId: 'sec_stale' }, { secretId: 'sec_gone' }] });
    const head = (id: string, references: string[]) => ({ ...keys.secretHead(WS, id), ...record({ id }), references });
    dynamodb.on(BatchGetCommand).resolves({ Responses: { T: [head('sec_a', ['app/prod/A']), head('sec_stale', ['app/prod/OTHER'])] } });
    // Act
    const ids = await makeReferenceIndexStore(db).referencedBy(WS, 'app/prod/A');
    // Assess
    expect(ids).toEqual(['sec_a']);
    expect(Object.values(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues!)).toContain(
      'REFBY#app/prod/A#SEC#',
    );
    expect(dynamodb.commandCalls(BatchGetCommand)).toHaveLength(1);
  });
});
