import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { makeSyncStore, MAX_SYNCS, syncOfItem } from '../../../shared/syncs/sync-store.ts';
import { caught } from '../support/fakes.ts';
import { audit, mockedDb, transactionFailedAt, WS } from '../webhooks/store-support.ts';
import { syncRecord } from './support.ts';

const SYNC = 'sync_01JX0000000000000000000000';
const sealed = { ciphertext: 'Y2lwaGVy', iv: 'aXY=', tag: 'dGFn', encryptedDataKey: 'ZGs=' };
const record = syncRecord({
  id: SYNC,
  accountId: 'acc_x',
  environmentId: 'env_01',
  projectId: 'proj_01',
  destination: { type: 'github-actions', repository: 'acme/web' },
  sealedToken: sealed,
  createdAt: '2026-12-07T06:00:00.000Z',
  updatedAt: '2026-12-07T06:00:00.000Z',
});
const pager = { queryPage: async () => ({ items: [], nextCursor: null, hasMore: false }) } as never;

describe('sync store', () => {
  it('creates the sync (token as binary) under the capped counter with its audit entry; a full workspace is LIMIT_EXCEEDED', async () => {
    const { db, dynamodb } = mockedDb();
    const store = makeSyncStore(db, pager);
    await store.createSync(WS, record, audit({ action: 'sync.create' }));
    const [counter, put, entry] = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(counter!.Update).toMatchObject({ Key: { SK: '#SYNC_COUNT' }, ExpressionAttributeValues: { ':max': MAX_SYNCS } });
    expect(put!.Put).toMatchObject({
      Item: { SK: `SYNC#${SYNC}`, type: 'Sync', revision: 1 },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    expect(Buffer.isBuffer((put!.Put!.Item!.sealedToken as { c: unknown }).c)).toBe(true);
    expect(entry!.Put).toBeDefined();
    dynamodb.on(TransactWriteCommand).rejects(transactionFailedAt(0, 3));
    expect((await caught(() => store.createSync(WS, record, audit()))).code).toBe('LIMIT_EXCEEDED');
  });

  it('a PATCH SETs only its fields and the next revision, under the revision read; never the worker attributes', async () => {
    const { db, dynamodb } = mockedDb();
    const store = makeSyncStore(db, pager);
    await store.updateSync(WS, SYNC, 3, { keys: 'A*', status: 'paused', sealedToken: sealed, updatedAt: 'now' }, audit());
    const update = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![0]!.Update!;
    expect(update.UpdateExpression).toBe('SET #f0 = :f0, #f1 = :f1, #f2 = :f2, #f3 = :f3, #revision = :next');
    expect(Object.values(update.ExpressionAttributeNames!).sort()).toEqual(['keys', 'revision', 'sealedToken', 'status', 'updatedAt']);
    expect(update.ConditionExpression).toBe('attribute_exists(PK) AND #revision = :read');
    expect(update.ExpressionAttributeValues).toMatchObject({ ':read': 3, ':next': 4 });
    expect(update.UpdateExpression).not.toMatch(/REMOVE|lease|pushedThrough|lastSyncedAt|lastError|failingSince/);
  });

  it('a PATCH whose revision moved is CONFLICT, of a deleted sync NOT_FOUND', async () => {
    const { db, dynamodb } = mockedDb();
    const store = makeSyncStore(db, pager);
    dynamodb.on(TransactWriteCommand).rejects(transactionFailedAt(0, 2));
    dynamodb.on(GetCommand).resolves({ Item: { type: 'Sync' } });
    expect((await caught(() => store.updateSync(WS, SYNC, 1, { prune: true, updatedAt: 'now' }, audit()))).code).toBe('CONFLICT');
    dynamodb.on(GetCommand).resolves({});
    expect((await caught(() => store.updateSync(WS, SYNC, 1, { prune: true, updatedAt: 'now' }, audit()))).code).toBe('NOT_FOUND');
  });

  it('deletes the sync, its written keys, the count and writes the audit entry in one transaction', async () => {
    const { db, dynamodb } = mockedDb();
    const store = makeSyncStore(db, pager);
    await store.deleteSync(WS, SYNC, audit({ action: 'sync.delete' }));
    const items = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(items.map((item) => item.Delete?.Key?.SK ?? item.Update?.Key?.SK ?? 'audit')).toEqual([
      `SYNC#${SYNC}`,
      `SYNCW#${SYNC}`,
      '#SYNC_COUNT',
      'audit',
    ]);
    expect(items[2]!.Update!.ExpressionAttributeValues![':delta']).toBe(-1);
    dynamodb.on(TransactWriteCommand).rejects(transactionFailedAt(0, 4));
    expect((await caught(() => store.deleteSync(WS, SYNC, audit()))).code).toBe('NOT_FOUND');
  });

  it('syncOfItem reads the record back (token unsealed to its envelope form), without the lease or push marks', async () => {
    const { db, dynamodb } = mockedDb();
    await makeSyncStore(db, pager).createSync(WS, record, audit());
    const item = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![1]!.Put!.Item!;
    expect(syncOfItem({ ...item, leaseOwner: 'w', leaseUntil: 1, pushedThrough: 5 })).toEqual(record);
    expect(syncOfItem({ ...item, type: 'SyncWritten' })).toBeUndefined();
  });

  it('lists every sync of a workspace in one Query, at most the cap', async () => {
    const { db, dynamodb } = mockedDb();
    dynamodb.on(QueryCommand).resolves({ Items: [] });
    await makeSyncStore(db, pager).listSyncsOfWorkspace(WS);
    const input = dynamodb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(input).toMatchObject({ Limit: MAX_SYNCS, ExpressionAttributeValues: { ':skp': 'SYNC#' } });
  });
});
