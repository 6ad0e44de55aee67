import { beforeEach, describe, expect, it } from 'vitest';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, LimitExceededError, NotFoundError } from '../../../../shared/platform/errors.ts';
import type { TransactItem } from '../../../../shared/platform/store/conditional.ts';
import type { Pager } from '../../../../shared/platform/store/pager.ts';
import { makeEndpointApiStore, MAX_ENDPOINTS, toEndpoint } from '../../../../shared/webhooks/endpoints/endpoint-store.ts';
import { caught } from '../../support/fakes.ts';
import { endpoint } from '../pipeline-support.ts';
import { audit, mockedDb, transactionFailedAt, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();
const store = makeEndpointApiStore(db, {} as Pager);
const KEY = { PK: `WS#${WS}`, SK: 'WHE#we_01' };
const SEALED = { ciphertext: 'bmV3', iv: 'AA==', tag: 'AA==', encryptedDataKey: 'AA==' };
const OLD_SEALED = { ...SEALED, ciphertext: 'b2xk' };
type TransactUpdate = TransactItem['Update'];
const items = () => dynamodb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('webhook endpoints in the store', () => {
  it('creates an endpoint with the cap counter and its audit entry; the 21st is LIMIT_EXCEEDED', async () => {
    // Prepare
    dynamodb.on(TransactWriteCommand).resolvesOnce({}).rejectsOnce(transactionFailedAt(0, 3));
    // Act
    await store.createEndpoint(WS, endpoint(), audit());
    const refused = await caught(() => store.createEndpoint(WS, endpoint(), audit()));
    // Assess
    const [counter, put, entry] = items()[0]!;
    expect(counter!.Update).toMatchObject({ ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' });
    expect(counter!.Update!.ExpressionAttributeValues).toMatchObject({ ':delta': 1, ':max': MAX_ENDPOINTS });
    expect(put!.Put).toMatchObject({
      Item: { ...KEY, type: 'WebhookEndpoint', workspaceId: WS },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    expect(entry!.Put).toBeDefined();
    expect(refused).toBeInstanceOf(LimitExceededError);
  });

  it('writes a change only over the endpoint as it was read, and the failure streak only when enabling resets it', async () => {
    // Act
    await store.updateEndpoint(WS, endpoint({ updatedAt: 'T2' }), 'T1', false, audit());
    await store.updateEndpoint(WS, endpoint({ updatedAt: 'T2' }), 'T1', true, audit());
    // Assess
    const [plain, reset] = items().map((transaction) => transaction[0]!.Update!) as [
      NonNullable<TransactUpdate>,
      NonNullable<TransactUpdate>,
    ];
    expect(plain.ConditionExpression).toBe('attribute_exists(PK) AND #updatedAt = :read');
    expect(plain.ExpressionAttributeValues).toMatchObject({ ':read': 'T1', ':updatedAt': 'T2' });
    expect(plain.UpdateExpression).not.toContain('consecutiveFailures');
    expect(reset.UpdateExpression).toMatch(/, consecutiveFailures = :zero REMOVE failingSince$/);
  });

  it('a change that lost its race is CONFLICT while the endpoint exists, NOT_FOUND once it is gone', async () => {
    // Prepare
    dynamodb.on(TransactWriteCommand).rejects(transactionFailedAt(0, 2));
    dynamodb
      .on(GetCommand)
      .resolvesOnce({ Item: { ...KEY } })
      .resolvesOnce({});
    // Act
    const changed = await caught(() => store.updateEndpoint(WS, endpoint(), 'T1', false, audit()));
    const gone = await caught(() => store.updateEndpoint(WS, endpoint(), 'T1', false, audit()));
    // Assess
    expect(changed).toBeInstanceOf(ConflictError);
    expect(gone).toBeInstanceOf(NotFoundError);
  });

  it('rotates only over the secret it read, keeping the one it replaces beside it for an overlap, or none', async () => {
    // Act
    const read = { updatedAt: 'T1', secret: OLD_SEALED };
    await store.rotateEndpointSecret(
      WS,
      endpoint({ sealedSecret: SEALED, previousSealedSecret: OLD_SEALED, previousSecretExpiresAt: 'T9' }),
      read,
      audit(),
    );
    await store.rotateEndpointSecret(WS, endpoint({ sealedSecret: SEALED, previousSecretExpiresAt: null }), read, audit());
    // Assess
    const [overlap, none] = items().map((transaction) => transaction[0]!.Update!) as [
      NonNullable<TransactUpdate>,
      NonNullable<TransactUpdate>,
    ];
    expect(overlap.ConditionExpression).toBe('attribute_exists(PK) AND updatedAt = :read AND sealedSecret.ciphertext = :readCiphertext');
    expect(overlap.ExpressionAttributeValues).toMatchObject({ ':readCiphertext': 'b2xk', ':previous': OLD_SEALED, ':until': 'T9' });
    expect(overlap.UpdateExpression).toContain('previousSealedSecret = :previous');
    expect(none.UpdateExpression).toMatch(/REMOVE previousSealedSecret, previousSecretExpiresAt$/);
  });

  it('deletes an endpoint with the counter down and its audit entry; one already gone is NOT_FOUND', async () => {
    // Prepare
    dynamodb.on(TransactWriteCommand).resolvesOnce({}).rejectsOnce(transactionFailedAt(0, 3));
    // Act
    await store.deleteEndpoint(WS, 'we_01', audit());
    const gone = await caught(() => store.deleteEndpoint(WS, 'we_01', audit()));
    // Assess
    const [remove, counter] = items()[0]!;
    expect(remove!.Delete).toMatchObject({ Key: KEY, ConditionExpression: 'attribute_exists(PK)' });
    expect(counter!.Update!.ExpressionAttributeValues).toMatchObject({ ':delta': -1 });
    expect(counter!.Update!.ConditionExpression).toBeUndefined();
    expect(gone).toBeInstanceOf(NotFoundError);
  });

  it('reads an item back as an endpoint: its fields and sealed secrets, nothing else of the item', () => {
    const item = { ...KEY, type: 'WebhookEndpoint', workspaceId: WS, ...endpoint(), consecutiveFailures: undefined, GSI1PK: 'x' };
    const read = toEndpoint(item)!;
    expect(read.consecutiveFailures).toBe(0);
    expect(Object.keys(read)).not.toEqual(expect.arrayContaining(['PK', 'type', 'workspaceId', 'GSI1PK']));
    expect(toEndpoint(undefined)).toBeUndefined();
  });
});
