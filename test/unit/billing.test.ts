import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { indexWriteUnits, itemSize, makeBillingMeter, valueSize } from '../../bench/billing.ts';

/**
 * The bench's AWS billing model (bench/billing.ts): DynamoDB's item-size rules and its on-demand billing, each at
 * its limit and one past it. A fake raw client answers the meter's reads of the items a request touches.
 */
function fakeRaw(items: Record<string, Record<string, unknown>>, queried: Record<string, unknown>[] = []) {
  const reads: string[] = [];
  const raw = {
    async send(command: { input: Record<string, any> }) {
      if (command.input.KeyConditionExpression) return { Items: queried.slice(0, command.input.Limit) };
      const key = `${command.input.Key.PK}|${command.input.Key.SK}`;
      reads.push(key);
      return { Item: items[key] };
    },
  };
  return { meter: makeBillingMeter(raw as unknown as DynamoDBDocumentClient, 'table'), reads, items };
}

/** An item of exactly `bytes` bytes: keys PK and SK (2 + 2 + 1 + 1 = 6 bytes) and a padding string `p`. */
const sized = (bytes: number, extra: Record<string, unknown> = {}) => ({
  PK: 'a',
  SK: 'b',
  ...extra,
  p: 'x'.repeat(bytes - 6 - 1 - itemSize(extra)),
});

describe('item size', () => {
  it('counts names and UTF-8 values, numbers by significant digits, null and booleans as 1', () => {
    expect(valueSize('héllo')).toBe(6);
    expect(valueSize('')).toBe(0);
    expect(valueSize(true)).toBe(1);
    expect(valueSize(null)).toBe(1);
    expect(valueSize(1700000000)).toBe(2); // "17": one byte per two digits, plus one
    expect(valueSize(123)).toBe(3);
    expect(valueSize(-1.5)).toBe(3);
    expect(itemSize({ ab: 'cd', n: 1 })).toBe(2 + 2 + 1 + 2);
  });

  it('adds 3 bytes per map or list and 1 per element', () => {
    expect(valueSize([])).toBe(3);
    expect(valueSize(['a', 'b'])).toBe(3 + 2 + 2);
    expect(valueSize({ k: 'v' })).toBe(3 + 1 + 1 + 1);
    expect(valueSize(new Set(['ab', 'c']))).toBe(3);
    expect(sized(1024)).toSatisfy((item: Record<string, unknown>) => itemSize(item) === 1024);
  });
});

describe('write billing', () => {
  it('bills a put 1 unit per started KB: 1024 bytes is 1, 1025 is 2', async () => {
    const { meter } = fakeRaw({});
    for (const [bytes, units] of [
      [1024, 1],
      [1025, 2],
    ] as const) {
      const bill = await meter.prepare('PutItem', { Item: sized(bytes) });
      expect(await bill({})).toEqual({ readUnits: 0, writeUnits: units, indexWriteUnits: 0 });
    }
  });

  it('doubles every item inside a transaction, a ConditionCheck included', async () => {
    const { meter } = fakeRaw({ 'c|d': sized(100, {}) });
    const bill = await meter.prepare('TransactWriteItems', {
      TransactItems: [{ Put: { Item: sized(1500) } }, { ConditionCheck: { Key: { PK: 'c', SK: 'd' } } }],
    });
    expect(await bill({})).toEqual({ readUnits: 0, writeUnits: 2 * 2 + 2 * 1, indexWriteUnits: 0 });
  });

  it('bills an update by the larger of the item before and after, and the index writes it causes', async () => {
    const before = sized(900, { GSI1PK: 'x', GSI1SK: '1' });
    const after = sized(1100, { GSI1PK: 'x', GSI1SK: '2' });
    const fake = fakeRaw({ 'a|b': before });
    const bill = await fake.meter.prepare('UpdateItem', { Key: { PK: 'a', SK: 'b' } });
    fake.items['a|b'] = after;
    // 2 (1100 bytes) for the table; the index keys changed: delete (1) and put (2)
    expect(await bill({})).toEqual({ readUnits: 0, writeUnits: 2 + 1 + 2, indexWriteUnits: 3 });
  });

  it('writes an index only for items in it: entering, leaving, staying', () => {
    const plain = sized(500);
    const indexed = sized(500, { GSI2PK: 'DUE#1', GSI2SK: 't' });
    expect(indexWriteUnits(undefined, plain)).toBe(0);
    expect(indexWriteUnits(undefined, indexed)).toBe(1);
    expect(indexWriteUnits(indexed, plain)).toBe(1);
    expect(indexWriteUnits(indexed, { ...indexed, p: 'y'.repeat(600) })).toBe(1);
    expect(indexWriteUnits(indexed, indexed)).toBe(0);
  });

  it('bills an index that projects some attributes (GSI3: keys and eventType) on its copy, only when that changes', () => {
    const logged = sized(3000, { GSI3PK: 'WHE#we_1', GSI3SK: 'whd_1', eventType: 'secret.updated', status: 'pending' });
    // 3000 bytes in the table, but the index's copy (keys and eventType) is under 1 KB: 1 write, not 3.
    expect(indexWriteUnits(undefined, logged)).toBe(1);
    // An attempt's update changes what the index does not copy: no index write.
    expect(indexWriteUnits(logged, { ...logged, status: 'success', p: 'y'.repeat(3500) })).toBe(0);
    // A change of a projected attribute rewrites the copy; leaving the index deletes it.
    expect(indexWriteUnits(logged, { ...logged, eventType: 'secret.deleted' })).toBe(1);
    expect(indexWriteUnits(logged, sized(3000))).toBe(1);
    // The same item in an index that copies everything (GSI2) is billed on its whole size, on every change.
    const due = sized(3000, { GSI2PK: 'DUE#1', GSI2SK: 't', status: 'pending' });
    expect(indexWriteUnits(due, { ...due, status: 'success' })).toBe(3);
  });

  it('bills a BatchWriteItem per item, deletes by the deleted item', async () => {
    const { meter } = fakeRaw({ 'a|gone': sized(2048) });
    const bill = await meter.prepare('BatchWriteItem', {
      RequestItems: { table: [{ PutRequest: { Item: sized(10) } }, { DeleteRequest: { Key: { PK: 'a', SK: 'gone' } } }] },
    });
    expect(await bill({})).toEqual({ readUnits: 0, writeUnits: 1 + 2, indexWriteUnits: 0 });
  });
});

describe('read billing', () => {
  it('bills 4 KB steps, halved when eventually consistent, the minimum for an absent item', async () => {
    const { meter } = fakeRaw({});
    const get = async (item: Record<string, unknown> | undefined, consistent: boolean) =>
      (await (await meter.prepare('GetItem', { Key: { PK: 'a', SK: 'b' }, ConsistentRead: consistent }))({ Item: item })).readUnits;
    expect(await get(sized(4096), true)).toBe(1);
    expect(await get(sized(4097), true)).toBe(2);
    expect(await get(sized(4097), false)).toBe(1);
    expect(await get(undefined, true)).toBe(1);
    expect(await get(undefined, false)).toBe(0.5);
  });

  it('bills a BatchGetItem item by item, and a Query by the sum of every item it evaluated', async () => {
    const evaluated = [sized(3000), sized(3000), sized(3000)];
    const { meter } = fakeRaw({}, evaluated);
    const batch = await meter.prepare('BatchGetItem', { RequestItems: { table: { Keys: [{}, {}, {}], ConsistentRead: false } } });
    expect((await batch({ Responses: { table: [sized(100), sized(5000)] } })).readUnits).toBe(0.5 + 1 + 0.5);
    // 9,000 bytes evaluated (the filter kept one item): 3 units consistent
    const query = await meter.prepare('Query', {
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': 'a', ':f': 1 },
      FilterExpression: 'x = :f',
      ConsistentRead: true,
    });
    expect((await query({ Items: [evaluated[0]], ScannedCount: 3 })).readUnits).toBe(3);
  });

  it('bills a projected read on the whole stored item, not on the attributes it returns', async () => {
    const { meter } = fakeRaw({ 'a|big': sized(5000, { SK: 'big', status: 'pending' }) });
    const returned = { PK: 'a', SK: 'big', status: 'pending' };
    const batch = await meter.prepare('BatchGetItem', {
      RequestItems: { table: { Keys: [{ PK: 'a', SK: 'big' }], ConsistentRead: true, ProjectionExpression: '#p0, #p1, #p2' } },
    });
    expect((await batch({ Responses: { table: [returned] } })).readUnits).toBe(2);
    const get = await meter.prepare('GetItem', { Key: { PK: 'a', SK: 'big' }, ConsistentRead: true, ProjectionExpression: '#p0' });
    expect((await get({ Item: returned })).readUnits).toBe(2);
    // Without a projection the answer is the whole item already.
    const plain = await meter.prepare('GetItem', { Key: { PK: 'a', SK: 'big' }, ConsistentRead: true });
    expect((await plain({ Item: returned })).readUnits).toBe(1);
  });
});
