import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttributeValue,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { freePort, startDynamoDbLocal, type LocalDynamo } from '../../../bin/local/dynamodb.ts';
import { startStreamPoller } from '../../../bin/local/stream-poller.ts';
import type { StreamCheckpoints } from '../../../bin/local/stream-shards.ts';
import { ensureTable } from '../../../bin/local/table.ts';

let dynamo: LocalDynamo;
let db: DynamoDBClient;
let dir: string;
let pollers: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir: null });
  db = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  dir = mkdtempSync(join(tmpdir(), 'stream-poller-'));
});
afterEach(async () => {
  for (const poller of pollers) await poller.stop();
  pollers = [];
});
afterAll(async () => {
  db?.destroy();
  await dynamo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let tables = 0;
/** A table of its own per test (so a stream of its own), and a checkpoint file beside it. */
async function newTable() {
  const tableName = `stream-poller-${++tables}`;
  await ensureTable(db, tableName);
  const streamArn = (await db.send(new DescribeTableCommand({ TableName: tableName }))).Table!.LatestStreamArn!;
  return { tableName, streamArn, checkpointFile: join(dir, `${tableName}.json`) };
}

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
/** Starts a poller whose handler records every invocation's records before running `handler`. */
async function poll(table: { tableName: string; checkpointFile: string }, handler: Handler = async () => undefined, maxRetries = 5) {
  const invocations: DynamoDBRecord[][] = [];
  const poller = await startStreamPoller({
    endpoint: dynamo.endpoint,
    ...table,
    pollIntervalMs: 50,
    retryBaseMs: 10,
    maxRetries,
    handler: async (event) => {
      invocations.push(event.Records);
      return handler(event);
    },
  });
  pollers.push(poller);
  return { poller, invocations, records: () => invocations.flat() };
}

const put = (tableName: string, pk: string, extra: Record<string, AttributeValue> = {}) =>
  db.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: pk }, SK: { S: '#' }, ...extra } }));
const pks = (records: DynamoDBRecord[]) => records.map((record) => record.dynamodb?.Keys?.PK?.S);
const seq = (record: DynamoDBRecord | undefined) => record?.dynamodb?.SequenceNumber;
const checkpoint = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as StreamCheckpoints;
const lastSequence = (file: string) => (existsSync(file) ? Object.values(checkpoint(file).shards).at(-1)?.sequenceNumber : undefined);

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('local DynamoDB Streams event source mapping', () => {
  it('delivers INSERT, MODIFY and REMOVE in order, as Lambda shapes them', async () => {
    // Prepare
    const table = await newTable();
    const before = Date.now();
    // DynamoDB Local's GetRecords drops an empty map's M (`"m":{}`); Lambda on AWS delivers `{"M":{}}`.
    const empties = { m: { M: {} }, l: { L: [] }, deep: { M: { m: { M: {} }, l: { L: [{ M: {} }] } } } };
    await put(table.tableName, 'A', { n: { N: '1' }, blob: { B: new Uint8Array([1, 2, 3]) }, ...empties });
    await db.send(
      new UpdateItemCommand({
        TableName: table.tableName,
        Key: { PK: { S: 'A' }, SK: { S: '#' } },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': { N: '2' } },
      }),
    );
    await db.send(new DeleteItemCommand({ TableName: table.tableName, Key: { PK: { S: 'A' }, SK: { S: '#' } } }));
    await put(table.tableName, 'B');

    // Act
    const { records } = await poll(table);
    await waitFor(() => records().length >= 4, 'four records');

    // Assess
    const [insert, modify, remove, second] = records();
    expect(records().map((record) => record.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE', 'INSERT']);
    expect(pks(records())).toEqual(['A', 'A', 'A', 'B']);
    expect(insert).toMatchObject({
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      eventSourceARN: table.streamArn,
      eventID: expect.any(String),
    });
    expect(insert!.dynamodb).toMatchObject({
      Keys: { PK: { S: 'A' }, SK: { S: '#' } },
      StreamViewType: 'NEW_AND_OLD_IMAGES',
      SizeBytes: expect.any(Number),
    });
    expect(insert!.dynamodb!.NewImage).toEqual({ PK: { S: 'A' }, SK: { S: '#' }, n: { N: '1' }, blob: { B: 'AQID' }, ...empties });
    expect(insert!.dynamodb!.OldImage).toBeUndefined();
    expect([modify!.dynamodb!.OldImage!.n, modify!.dynamodb!.NewImage!.n]).toEqual([{ N: '1' }, { N: '2' }]);
    expect(remove!.dynamodb!.NewImage).toBeUndefined();
    expect(remove!.dynamodb!.OldImage).toMatchObject({ blob: { B: 'AQID' }, ...empties });
    const created = insert!.dynamodb!.ApproximateCreationDateTime!;
    expect(Number.isInteger(created) && created >= Math.floor(before / 1000) - 60 && created <= Date.now() / 1000).toBe(true);
    const sequence = records().map((record) => BigInt(seq(record)!));
    expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(sequence).size).toBe(4);
    await waitFor(() => lastSequence(table.checkpointFile) === seq(second), 'the checkpoint at the last record');
  });

  it('resumes after its checkpoint on restart: no duplicates, no gaps', async () => {
    // Prepare
    const table = await newTable();
    const first = await poll(table);
    for (const pk of ['1', '2', '3']) await put(table.tableName, pk);
    await waitFor(() => first.records().length >= 3, 'the first three records');
    await first.poller.stop();
    const saved = checkpoint(table.checkpointFile);
    for (const pk of ['4', '5']) await put(table.tableName, pk);

    // Act
    const second = await poll(table);
    await waitFor(() => second.records().length >= 2, 'the two records written while stopped');
    await sleep(300);

    // Assess
    expect(saved.streamArn).toBe(table.streamArn);
    expect(Object.values(saved.shards).at(-1)?.sequenceNumber).toBe(seq(first.records()[2]));
    expect(pks(first.records())).toEqual(['1', '2', '3']);
    expect(pks(second.records())).toEqual(['4', '5']);
  });

  it('retries a batch whose handler threw, then moves the checkpoint past it', async () => {
    // Prepare
    const table = await newTable();
    let calls = 0;
    await put(table.tableName, 'retry-me');

    // Act
    const { invocations } = await poll(table, async () => {
      calls += 1;
      if (calls === 1) throw new Error('transient');
    });
    await waitFor(() => invocations.length >= 2, 'the retry');
    await waitFor(() => lastSequence(table.checkpointFile) !== undefined, 'the checkpoint');

    // Assess
    expect(invocations.map((records) => records.map((record) => record.eventID))).toEqual([
      [invocations[0]![0]!.eventID],
      [invocations[0]![0]!.eventID],
    ]);
    expect(lastSequence(table.checkpointFile)).toBe(seq(invocations[0]![0]));
  });

  it('resumes from the lowest failed record a batch response names', async () => {
    // Prepare
    const table = await newTable();
    for (const pk of ['1', '2', '3', '4']) await put(table.tableName, pk);
    let calls = 0;

    // Act
    const { invocations } = await poll(table, async (event) => {
      calls += 1;
      if (calls > 1) return;
      return { batchItemFailures: [seq(event.Records[3])!, seq(event.Records[1])!].map((itemIdentifier) => ({ itemIdentifier })) };
    });
    await waitFor(() => invocations.length >= 2, 'the retry from the failed record');
    await sleep(300);

    // Assess
    expect(invocations.map(pks)).toEqual([
      ['1', '2', '3', '4'],
      ['2', '3', '4'],
    ]);
  });

  it('bisects a failing batch, skips a poison record after its retries and goes on', async () => {
    // Prepare
    const table = await newTable();
    for (const pk of ['a', 'poison', 'c']) await put(table.tableName, pk);

    // Act
    const { invocations } = await poll(
      table,
      async (event) => {
        if (pks(event.Records).includes('poison')) throw new Error('cannot handle this record');
      },
      2,
    );
    await waitFor(() => pks(invocations.at(-1) ?? []).includes('c') && invocations.length >= 7, 'the record after the poison one');
    await sleep(300);

    // Assess
    expect(invocations.map(pks)).toEqual([['a', 'poison', 'c'], ['a', 'poison'], ['a'], ['poison'], ['poison'], ['poison'], ['c']]);
    expect(lastSequence(table.checkpointFile)).toBe(seq(invocations[6]![0]));
  });
});
