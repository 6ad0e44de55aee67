import { describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { ServiceUnavailableError } from '../../../../shared/platform/errors.ts';
import { CONTENTION, sendConditional, transact } from '../../../../shared/platform/store/conditional.ts';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
const db = { doc, tableName: 'T' };
const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
const put = { Put: { TableName: 'T', Item: { PK: 'a', SK: 'b' } } };

describe('transact', () => {
  it('answers undefined when the transaction commits', async () => {
    mockClient(doc).on(TransactWriteCommand).resolves({});
    expect(await transact(db, [put, put], [0])).toBeUndefined();
  });

  it('answers the index of a handled condition that failed, and throws an unhandled one', async () => {
    const mock = mockClient(doc);
    mock.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed'));
    expect(await transact(db, [put, put], [1])).toBe(1);
    await expect(transact(db, [put, put], [0])).rejects.toMatchObject({ name: 'TransactionCanceledException' });
  });

  it('answers CONTENTION for a conflicting transaction only when asked to, else SERVICE_UNAVAILABLE', async () => {
    mockClient(doc).on(TransactWriteCommand).rejects(cancelled('TransactionConflict', 'None'));
    expect(await transact(db, [put, put], [0], { contention: 'handled' })).toBe(CONTENTION);
    await expect(transact(db, [put, put], [0])).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('sendConditional', () => {
  it('answers the output, or undefined when the condition failed; other failures are thrown', async () => {
    const mock = mockClient(doc);
    mock
      .on(PutCommand)
      .resolvesOnce({ Attributes: { x: 1 } })
      .rejectsOnce(Object.assign(new Error('no'), { name: 'ConditionalCheckFailedException' }));
    expect(await sendConditional(db, new PutCommand({ TableName: 'T', Item: {} }))).toEqual({ Attributes: { x: 1 } });
    expect(await sendConditional(db, new PutCommand({ TableName: 'T', Item: {} }))).toBeUndefined();
    mock.on(PutCommand).rejects(Object.assign(new Error('bad'), { name: 'ValidationException' }));
    await expect(sendConditional(db, new PutCommand({ TableName: 'T', Item: {} }))).rejects.toThrow('bad');
  });
});
