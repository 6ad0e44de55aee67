import { beforeEach, describe, expect, it } from 'vitest';
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { makeEndpointFanoutStore, makeEndpointWorkerStore } from '../../../../shared/webhooks/endpoints/endpoint-pipeline-store.ts';
import { endpoint } from '../pipeline-support.ts';
import { audit, conditionFailed, mockedDb, transactionFailedAt, WS } from '../store-support.ts';

const { db, dynamodb } = mockedDb();
const store = makeEndpointWorkerStore(db);
const KEY = { PK: `WS#${WS}`, SK: 'WHE#we_01' };

beforeEach(() => {
  dynamodb.reset();
  dynamodb.onAnyCommand().resolves({});
});

describe('webhook endpoints as the pipeline uses them', () => {
  it("counts a failed attempt into the endpoint's streak, dated by the streak's first failure", async () => {
    // Prepare
    dynamodb.on(UpdateCommand).resolvesOnce({ Attributes: { ...KEY, ...endpoint({ consecutiveFailures: 3, failingSince: 'T0' }) } });
    // Act
    const updated = await store.recordEndpointFailure(WS, 'we_01', 'T5');
    // Assess
    const input = dynamodb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      Key: KEY,
      UpdateExpression: 'ADD consecutiveFailures :one SET failingSince = if_not_exists(failingSince, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ReturnValues: 'ALL_NEW',
    });
    expect(updated).toMatchObject({ consecutiveFailures: 3, failingSince: 'T0' });
  });

  it('counts nothing for an endpoint deleted meanwhile, and ends no streak of one', async () => {
    // Prepare
    dynamodb.on(UpdateCommand).rejects(conditionFailed());
    // Act
    const failure = await store.recordEndpointFailure(WS, 'we_01', 'T5');
    await store.recordEndpointSuccess(WS, 'we_01');
    // Assess: neither throws, and neither could create the item
    expect(failure).toBeUndefined();
    const [, success] = dynamodb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(success).toMatchObject({
      UpdateExpression: 'SET consecutiveFailures = :zero REMOVE failingSince',
      ConditionExpression: 'attribute_exists(PK)',
    });
  });

  it('switches off only an enabled endpoint, with its audit entry; one already off answers false', async () => {
    // Prepare
    dynamodb.on(TransactWriteCommand).resolvesOnce({}).rejectsOnce(transactionFailedAt(0, 2));
    // Act
    const first = await store.autoDisableEndpoint(WS, 'we_01', 'T9', '20 failed attempts', audit({ action: 'webhook_endpoint.disabled' }));
    const again = await store.autoDisableEndpoint(WS, 'we_01', 'T9', '20 failed attempts', audit({ action: 'webhook_endpoint.disabled' }));
    // Assess
    const [update, entry] = dynamodb.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(update!.Update).toMatchObject({ Key: KEY, ConditionExpression: 'enabled = :true' });
    expect(update!.Update!.ExpressionAttributeValues).toMatchObject({ ':false': false, ':at': 'T9', ':reason': '20 failed attempts' });
    expect(entry!.Put).toBeDefined();
    expect([first, again]).toEqual([true, false]);
  });

  it("lists a workspace's endpoints for the fan-out newest first, read consistently", async () => {
    // Prepare
    dynamodb.on(QueryCommand).resolves({ Items: [{ ...KEY, ...endpoint() }] });
    // Act
    const endpoints = await makeEndpointFanoutStore(db).listEndpoints(WS);
    // Assess
    expect(endpoints.map((e) => e.id)).toEqual(['we_01']);
    expect(dynamodb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({ ConsistentRead: true, ScanIndexForward: false });
  });
});
