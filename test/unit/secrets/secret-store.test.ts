import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { ENTITY, keys } from '../../../shared/platform/store/keys.ts';
import type { Pager } from '../../../shared/platform/store/pager.ts';
import { toStored } from '../../../shared/platform/store/sealed.ts';
import {
  InRecoveryWindowError,
  VersionConflictError,
  VersionIdTakenError,
  type SecretRecord,
} from '../../../shared/secrets/secret-record.ts';
import { makeSecretStore } from '../../../shared/secrets/secret-store.ts';

/**
 * The secrets store's write of a secret's state (shared/secrets/secret-store.ts, `writeSecretVersion`) over a mocked
 * DynamoDB client: which items one transaction carries in each case, which of them are conditional and on what, and
 * which domain error each failed condition becomes; and its reads of a version and pages.
 */

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const dynamodb = mockClient(doc);

const WS = 'ws_1';
const SEALED = { ciphertext: 'Y2lwaGVy', iv: 'aXY=', tag: 'dGFn', encryptedDataKey: 'ZGs=' };
const OTHER_SEALED = { ...SEALED, ciphertext: 'b3RoZXI=' };
const TOKEN = 't'.repeat(32);
const audit: AuditEntry = {
  id: 'aud_1',
  action: 'secret.create',
  actorSub: 'key_1',
  target: 'sec_1',
  metadata: {},
  createdAt: '2026-01-02T00:00:00.000Z',
  accountId: 'acc_1',
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

const pager = { queryPage: vi.fn(async () => ({ items: [], nextCursor: null, hasMore: false })) };
const store = makeSecretStore({ doc, tableName: 'T' }, pager as unknown as Pager);

/** The items of the one transaction sent, each as `<operation> <SK> [condition]`. */
function sentItems(): string[] {
  const [call] = dynamodb.commandCalls(TransactWriteCommand);
  return call!.args[0].input.TransactItems!.map((item) => {
    const [operation, body] = Object.entries(item)[0]! as [
      string,
      { Item?: { SK: string }; Key?: { SK: string }; ConditionExpression?: string },
    ];
    const sk = (body.Item ?? body.Key)!.SK;
    return [operation, sk, body.ConditionExpression].filter(Boolean).join(' ');
  });
}

const cancelled = (codes: string[], oldAt?: { index: number; item: Record<string, unknown> }) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code, i) => ({ Code, ...(oldAt?.index === i && { Item: marshall(oldAt.item) }) })),
  });

/** The error a write failed with (a write that committed fails the test). */
const failure = (write: Promise<unknown>) =>
  write.then(
    () => Promise.reject(new Error('the write committed')),
    (error: unknown) => error as VersionConflictError,
  );

beforeEach(() => {
  dynamodb.reset();
  dynamodb.on(TransactWriteCommand).resolves({});
});

describe('writeSecretVersion: the transaction', () => {
  it('creates a secret: head, path, key item and version must not exist; audit entry and claimed token follow (no value item: loads read the path item)', async () => {
    // Act
    await store.writeSecretVersion(WS, { ...record(), sealed: SEALED }, undefined, { createdBy: 'key_1', versionId: TOKEN }, audit);

    // Assess
    const absent = 'attribute_not_exists(PK)';
    expect(sentItems()).toEqual([
      `Put SEC#sec_1 ${absent}`,
      `Put PATH#app/prod/DB_URL ${absent} OR (#type = :marker)`,
      `Put ${keys.environmentSecret(WS, 'env_1', 'DB_URL').SK} ${absent}`,
      `Put ${keys.secretVersion(WS, 'sec_1', 1).SK} ${absent}`,
      expect.stringMatching(/^Put \S*aud_1 attribute_not_exists\(PK\)$/),
      `Put ${keys.secretVersionId(WS, 'sec_1', TOKEN).SK} ${absent}`,
    ]);
  });

  it('writes a next version only while the key is as it was read, and keeps the head sealed value off the key item', async () => {
    // Prepare
    const read = record({ revision: 4 });

    // Act
    await store.writeSecretVersion(
      WS,
      { ...record({ currentVersion: 2, revision: 5 }), sealed: SEALED },
      read,
      { createdBy: 'key_1' },
      audit,
    );

    // Assess
    const [call] = dynamodb.commandCalls(TransactWriteCommand);
    const items = call!.args[0].input.TransactItems!;
    expect(sentItems().slice(0, 3)).toEqual(Array(3).fill(expect.stringMatching(/ #revision = :revision$/)));
    expect(items[0]!.Put!.ExpressionAttributeValues).toEqual({ ':revision': 4 });
    expect(items[2]!.Put).toMatchObject({ ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(items[2]!.Put!.Item).not.toHaveProperty('sealed');
    expect(items[0]!.Put!.Item).toMatchObject({ type: ENTITY.secretHead, sealed: toStored(SEALED) });
    expect(items[3]!.Put!.Item).toMatchObject({ version: 2, createdBy: 'key_1', createdAt: record().updatedAt, sealed: toStored(SEALED) });
    // Head, path, key, version and the audit entry: 4 items a version, so a merge of 20 fits one transaction.
    expect(items).toHaveLength(5);
  });

  it('writes a version that is not current with its own value', async () => {
    // Prepare
    const read = record({ revision: 4 });

    // Act
    await store.writeSecretVersion(
      WS,
      { ...record({ revision: 5, latestVersion: 2 }), sealed: SEALED },
      read,
      { number: 2, sealed: OTHER_SEALED, createdBy: 'key_1', versionId: TOKEN, claim: false },
      undefined,
    );

    // Assess
    const [call] = dynamodb.commandCalls(TransactWriteCommand);
    const items = call!.args[0].input.TransactItems!;
    expect(items).toHaveLength(4);
    expect(items[3]!.Put!.Item).toMatchObject({ version: 2, versionId: TOKEN, sealed: toStored(OTHER_SEALED) });
  });

  it('a change of labels alone writes no version item, and claims the token a rotation reserves', async () => {
    // Act
    await store.writeSecretVersion(WS, { ...record({ revision: 5 }), sealed: SEALED }, record({ revision: 4 }), null, undefined, {
      versionId: TOKEN,
      number: 2,
    });

    // Assess
    expect(sentItems()).toEqual([
      expect.stringMatching(/^Put SEC#sec_1 /),
      expect.stringMatching(/^Put PATH#/),
      expect.stringMatching(/^Put /),
      `Put ${keys.secretVersionId(WS, 'sec_1', TOKEN).SK} attribute_not_exists(PK)`,
    ]);
  });

  it("with notInRecoveryWindow checks the path's deletion record against the write's time, last", async () => {
    // Act
    await store.writeSecretVersion(WS, { ...record(), sealed: SEALED }, undefined, { createdBy: 'key_1' }, undefined, undefined, {
      notInRecoveryWindow: true,
    });

    // Assess
    const [call] = dynamodb.commandCalls(TransactWriteCommand);
    const last = call!.args[0].input.TransactItems!.at(-1)!;
    expect(last.ConditionCheck).toEqual({
      TableName: 'T',
      Key: keys.deletedSecretPath(WS, 'app/prod/DB_URL'),
      ConditionExpression: 'attribute_not_exists(PK) OR #ttl <= :now',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':now': Date.parse(record().updatedAt) / 1000 },
    });
  });

  it('refuses a version without a sealed value before sending anything', async () => {
    // Act
    const refused = store.writeSecretVersion(WS, { ...record(), sealed: undefined }, undefined, { createdBy: 'key_1' }, undefined);

    // Assess
    await expect(refused).rejects.toThrow('a version needs its sealed value');
    expect(dynamodb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('writeSecretVersion: what a failed condition means', () => {
  const write = () =>
    store.writeSecretVersion(WS, { ...record(), sealed: SEALED }, undefined, { createdBy: 'key_1', versionId: TOKEN }, audit, undefined, {
      notInRecoveryWindow: true,
    });
  // Items: head 0, path 1, key 2, version 3, audit 4, claim 5, recovery window 6.
  const codes = (failedAt: number) => Array.from({ length: 7 }, (_, i) => (i === failedAt ? 'ConditionalCheckFailed' : 'None'));

  it('the claimed token: VersionIdTakenError', async () => {
    // Prepare
    dynamodb.on(TransactWriteCommand).rejects(cancelled(codes(5)));

    // Act, Assess
    await expect(write()).rejects.toBeInstanceOf(VersionIdTakenError);
  });

  it('the recovery window: InRecoveryWindowError naming the path', async () => {
    // Prepare
    dynamodb.on(TransactWriteCommand).rejects(cancelled(codes(6)));

    // Act, Assess
    await expect(write()).rejects.toThrow(new InRecoveryWindowError('a secret deleted at app/prod/DB_URL is in its recovery window'));
  });

  it("the path: InRecoveryWindowError when a deleted secret's marker in its window holds it, else a VersionConflictError", async () => {
    // Prepare
    const marker = { ...keys.secretPath(WS, 'app/prod/DB_URL'), type: ENTITY.deletedSecretPath, secretId: 'sec_0', ttl: 1 };
    const live = { ...keys.secretPath(WS, 'app/prod/DB_URL'), ...record(), type: ENTITY.secretPath };
    dynamodb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(codes(1), { index: 1, item: marker }))
      .rejectsOnce(cancelled(codes(1), { index: 1, item: live }));
    // Act
    const marked = await failure(write());
    const taken = await failure(write());
    // Assess
    expect(marked).toEqual(new InRecoveryWindowError('a secret deleted at app/prod/DB_URL is in its recovery window'));
    expect(taken).toBeInstanceOf(VersionConflictError);
    const path = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems![1]!.Put!;
    expect(path.ConditionExpression).toBe('attribute_not_exists(PK) OR (#type = :marker AND #ttl <= :freeAt)');
    expect(path.ExpressionAttributeValues).toEqual({
      ':marker': ENTITY.deletedSecretPath,
      ':freeAt': Date.parse(record().updatedAt) / 1000,
    });
  });

  it('the key item: VersionConflictError with the key as the winner left it; without it when the key is gone (read again)', async () => {
    // Prepare
    const winner = { ...record({ currentVersion: 3, revision: 7 }), PK: 'WS#ws_1', SK: 'x', sealed: toStored(SEALED) };
    dynamodb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(codes(2), { index: 2, item: winner }))
      .rejectsOnce(cancelled(codes(2)));

    // Act
    const found = await failure(write());
    const gone = await failure(write());

    // Assess
    expect(found).toBeInstanceOf(VersionConflictError);
    expect(found.found).toEqual({ current: record({ currentVersion: 3, revision: 7 }) });
    expect(gone).toBeInstanceOf(VersionConflictError);
    expect(gone.found).toBeUndefined();
  });

  it('the head or a concurrent transaction: VersionConflictError without what it found', async () => {
    // Prepare
    dynamodb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(codes(0)))
      .rejectsOnce(cancelled(['TransactionConflict', ...Array(7).fill('None')]));

    // Act
    const head = await failure(write());
    const contention = await failure(write());

    // Assess
    expect([head, contention].map((error) => [error.constructor, error.found])).toEqual([
      [VersionConflictError, undefined],
      [VersionConflictError, undefined],
    ]);
  });
});

describe('reads', () => {
  it('getSecretVersion answers the version with its sealed value, undefined when absent', async () => {
    // Prepare
    const item = {
      ...keys.secretVersion(WS, 'sec_1', 2),
      version: 2,
      sealed: toStored(SEALED),
      createdAt: 'c',
      createdBy: 'key_1',
      versionId: TOKEN,
    };
    dynamodb.on(GetCommand).resolvesOnce({ Item: item }).resolvesOnce({});

    // Act
    const found = await store.getSecretVersion(WS, 'sec_1', 2);
    const absent = await store.getSecretVersion(WS, 'sec_1', 3);

    // Assess
    expect(found).toMatchObject({ version: 2, sealed: SEALED, createdBy: 'key_1', versionId: TOKEN });
    expect(absent).toBeUndefined();
  });

  it('searchSecrets pages by creation in the order asked, each order its own cursor scope, filtering by key in lower case', async () => {
    // Act
    await store.searchSecrets(WS, 'DB', { limit: 10 });
    await store.searchSecrets(WS, undefined, { limit: 10 }, undefined, false);

    // Assess
    const [newest, oldest] = pager.queryPage.mock.calls.map((call) => (call as unknown[])[0] as Record<string, unknown>);
    expect(newest).toMatchObject({
      scope: `search:${WS}:DB`,
      newestFirst: true,
      filter: { FilterExpression: 'contains(keyLower, :q)', ExpressionAttributeValues: { ':q': 'db' } },
    });
    expect(oldest).toMatchObject({ scope: `search-oldest-first:${WS}:`, newestFirst: false });
    expect(oldest).not.toHaveProperty('filter');
  });
});
