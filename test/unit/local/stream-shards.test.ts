import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mockClient } from 'aws-sdk-client-mock';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { startStreamPoller } from '../../../bin/local/stream-poller.ts';
import type { StreamCheckpoints } from '../../../bin/local/stream-shards.ts';
import { waitFor } from './support.ts';

const STREAM = 'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/2';
const tableMock = mockClient(DynamoDBClient);
const streamsMock = mockClient(DynamoDBStreamsClient);
let dir: string;
let stop: (() => Promise<void>) | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stream-shards-'));
});
afterEach(async () => {
  await stop?.();
  stop = undefined;
  tableMock.reset();
  streamsMock.reset();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (sequence: string): _Record => ({
  eventID: `e${sequence}`,
  eventName: 'INSERT',
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'ddblocal',
  dynamodb: {
    Keys: { PK: { S: sequence } },
    NewImage: { PK: { S: sequence } },
    SequenceNumber: sequence,
    SizeBytes: 10,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
});

/**
 * A parent shard `p` that closes after two records and its child `c`, whose second iterator expires once. Iterators
 * name how they were made, so the test sees every GetShardIterator the poller asks for.
 */
function scriptStream() {
  tableMock.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: STREAM } });
  streamsMock
    .on(DescribeStreamCommand)
    .resolves({ StreamDescription: { Shards: [{ ShardId: 'c', ParentShardId: 'p' }, { ShardId: 'p' }] } });
  streamsMock
    .on(GetShardIteratorCommand)
    .callsFake((input) => ({ ShardIterator: `${input.ShardId}:${input.ShardIteratorType}:${input.SequenceNumber ?? ''}` }));
  let expired = false;
  const pages: Record<string, () => { Records: _Record[]; NextShardIterator?: string }> = {
    'p:TRIM_HORIZON:': () => ({ Records: [record('01'), record('02')], NextShardIterator: 'p-end' }),
    'p-end': () => ({ Records: [] }),
    'c:TRIM_HORIZON:': () => ({ Records: [record('03')], NextShardIterator: 'c-1' }),
    'c-1': () => {
      if (!expired) {
        expired = true;
        throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
      }
      return { Records: [], NextShardIterator: 'c-1' };
    },
    'c:AFTER_SEQUENCE_NUMBER:03': () => ({ Records: [record('04')], NextShardIterator: 'c-2' }),
    'c-2': () => ({ Records: [], NextShardIterator: 'c-2' }),
  };
  streamsMock.on(GetRecordsCommand).callsFake((input) => pages[input.ShardIterator]!());
}

async function run(checkpointFile: string) {
  const batches: string[][] = [];
  const poller = await startStreamPoller({
    endpoint: 'http://127.0.0.1:9',
    tableName: 't',
    checkpointFile,
    pollIntervalMs: 5,
    handler: async (event) => void batches.push(event.Records.map((item: DynamoDBRecord) => item.dynamodb!.SequenceNumber!)),
  });
  stop = () => poller.stop();
  return batches;
}

const iterators = () => streamsMock.commandCalls(GetRecordsCommand).map((call) => call.args[0].input.ShardIterator);

describe('local stream poller shards', () => {
  it('reads a child shard only after its parent is closed and read, and survives an expired iterator', async () => {
    // Prepare
    scriptStream();
    const file = join(dir, 'lineage.json');

    // Act
    const batches = await run(file);
    await waitFor(() => batches.length === 3 && iterators().includes('c-2'), 3_000, 'both shards read');

    // Assess
    expect(batches).toEqual([['01', '02'], ['03'], ['04']]);
    const firstChildRead = iterators().indexOf('c:TRIM_HORIZON:');
    expect(iterators().slice(0, firstChildRead)).toEqual(['p:TRIM_HORIZON:', 'p-end']);
    expect((JSON.parse(readFileSync(file, 'utf8')) as StreamCheckpoints).shards).toEqual({
      p: { sequenceNumber: '02', finished: true },
      c: { sequenceNumber: '04' },
    });
  });

  it('drops the checkpoints of an older stream and starts the new one at TRIM_HORIZON', async () => {
    // Prepare
    scriptStream();
    const file = join(dir, 'old-stream.json');
    const old: StreamCheckpoints = {
      version: 1,
      streamArn: `${STREAM}-old`,
      shards: { p: { sequenceNumber: '01' }, gone: { finished: true } },
    };
    writeFileSync(file, JSON.stringify(old));

    // Act
    const batches = await run(file);
    // The checkpoint is saved after the handler returns, so wait for the save, not only for the batch.
    const savedCheckpoints = () => JSON.parse(readFileSync(file, 'utf8')) as StreamCheckpoints;
    await waitFor(() => batches.length >= 1 && savedCheckpoints().shards.p?.sequenceNumber === '02', 3_000, 'the first batch saved');

    // Assess
    expect(batches[0]).toEqual(['01', '02']);
    const saved = savedCheckpoints();
    expect(saved.streamArn).toBe(STREAM);
    expect(Object.keys(saved.shards)).not.toContain('gone');
  });
});
