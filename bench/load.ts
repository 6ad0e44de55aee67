import { BatchGetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { makeDocumentClient } from '../shared/platform/clients/dynamodb.ts';
import { quantile, runLoad } from './stats.ts';

export interface Api {
  baseUrl: string;
  apiKey: string;
}

/** One HTTP request to the local stack; throws on an unexpected status so a broken run cannot pass as fast. */
export async function request(api: Api, method: string, path: string, body?: unknown, expected = 200): Promise<any> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * The raw DynamoDB Local calls an operation needs, made directly with the SDK: the storage floor that the service's
 * latency is compared with. Each runs the same number and kind of requests as the operation, on items of the same
 * sizes.
 */
export function rawStorageCalls(endpoint: string, tableName: string) {
  const doc = makeDocumentClient({ endpoint });
  const item = (pk: string, sk: string, size: number) => ({ PK: pk, SK: sk, type: 'Bench', pad: 'x'.repeat(size) });
  const keysOf = (...sks: string[]) => sks.map((sk) => ({ PK: 'BENCH', SK: sk }));
  let n = 0;
  return {
    async seed() {
      const items = [
        item('BENCH', 'token', 200),
        item('BENCH', 'ws', 150),
        item('BENCH', 'head', 450),
        item('BENCH', 'env', 250),
        item('BENCH', 'ekey', 300),
      ];
      await doc.send(new TransactWriteCommand({ TransactItems: items.map((Item) => ({ Put: { TableName: tableName, Item } })) }));
    },
    /** Reveal: one consistent BatchGetItem of three items, one two-item transaction. */
    async reveal() {
      await doc.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keysOf('token', 'ws', 'head'), ConsistentRead: true } } }));
      n++;
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: item('BENCHAUDIT', `a${n}`, 350), ConditionExpression: 'attribute_not_exists(PK)' } },
            {
              Update: {
                TableName: tableName,
                Key: { PK: 'BENCHRATE', SK: `m${Math.floor(n / 100)}` },
                UpdateExpression: 'ADD #c :one SET #t = :t',
                ConditionExpression: 'attribute_not_exists(#c) OR #c < :limit',
                ExpressionAttributeNames: { '#c': 'count', '#t': 'ttl' },
                ExpressionAttributeValues: { ':one': 1, ':limit': 1_000_000, ':t': 1 },
              },
            },
          ],
        }),
      );
    },
    /** Write: one consistent BatchGetItem of four items, one five-item transaction. */
    async write() {
      await doc.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keysOf('token', 'ws', 'env', 'ekey'), ConsistentRead: true } } }),
      );
      n++;
      await doc.send(
        new TransactWriteCommand({
          TransactItems: ['head', 'path', 'ekey', `v${n}`, `a${n}`].map((sk) => ({
            Put: { TableName: tableName, Item: item(`BENCHW${n}`, sk, 400), ConditionExpression: 'attribute_not_exists(PK)' },
          })),
        }),
      );
    },
    /** List: one consistent BatchGetItem of two items, one Query. */
    async list() {
      await doc.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keysOf('token', 'ws'), ConsistentRead: true } } }));
      await doc.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': 'BENCH' },
          Limit: 51,
        }),
      );
    },
  };
}

/** p50 of `runs` sequential calls. */
export async function sequentialP50(call: () => Promise<void>, runs: number): Promise<number> {
  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t);
  }
  return quantile(latencies, 0.5)!;
}

export { runLoad };
