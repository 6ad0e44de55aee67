import { readFile } from 'node:fs/promises';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, GetShardIteratorCommand, type DynamoDBStreamsClient, type Shard } from '@aws-sdk/client-dynamodb-streams';
import type { Logger } from '../../shared/platform/logger.ts';
import { writeJsonAtomic } from './json-file.ts';

/** The checkpoint file: per shard, the last record handled (or skipped), and whether the shard is closed and read. */
export interface StreamCheckpoints {
  version: 1;
  streamArn: string;
  shards: Record<string, { sequenceNumber?: string; finished?: boolean }>;
}

/** A shard being read, and the iterator the next GetRecords continues from. */
export interface ShardState {
  shardId: string;
  parentShardId: string | undefined;
  iterator: string | undefined;
}

const SHARD_REFRESH_MS = 5_000;

async function loadCheckpoints(file: string): Promise<StreamCheckpoints | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<StreamCheckpoints>;
    if (parsed.version !== 1 || typeof parsed.streamArn !== 'string' || typeof parsed.shards !== 'object' || !parsed.shards) {
      throw new Error(`${file} is not a stream checkpoint file (version 1)`);
    }
    return parsed as StreamCheckpoints;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The stream's shards and the checkpoint file: which shards exist, which may be read now (a child only after its
 * parent is read to the end), where each resumes, and what has been done. A table recreated with a new stream
 * starts over at TRIM_HORIZON.
 */
export async function makeShardTracker(input: {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  checkpointFile: string;
  log: Logger;
}) {
  const { streams, log } = input;
  let checkpoints = await loadCheckpoints(input.checkpointFile);
  let shards = new Map<string, ShardState>();
  let lastRefresh = 0;
  const save = () => writeJsonAtomic(input.checkpointFile, checkpoints);
  const progress = (shardId: string) => (checkpoints!.shards[shardId] ??= {});

  /** Finds the table's stream and its shards; a new stream ARN drops every old checkpoint. */
  async function refresh(): Promise<void> {
    const table = await input.dynamodb.send(new DescribeTableCommand({ TableName: input.tableName }));
    const streamArn = table.Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`Table ${input.tableName} has no stream`);
    if (checkpoints?.streamArn !== streamArn) {
      if (checkpoints) log.info('The table has a new stream; starting it from TRIM_HORIZON');
      checkpoints = { version: 1, streamArn, shards: {} };
      shards = new Map();
    }
    const listed = await listShards(streamArn);
    const live = new Set(listed.map((shard) => shard.ShardId!));
    for (const id of Object.keys(checkpoints.shards)) if (!live.has(id)) delete checkpoints.shards[id];
    for (const shard of listed) {
      if (!shards.has(shard.ShardId!))
        shards.set(shard.ShardId!, { shardId: shard.ShardId!, parentShardId: shard.ParentShardId, iterator: undefined });
    }
    for (const id of shards.keys()) if (!live.has(id)) shards.delete(id);
    lastRefresh = Date.now();
  }

  async function listShards(streamArn: string): Promise<Shard[]> {
    const listed: Shard[] = [];
    let start: string | undefined;
    do {
      const page = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      listed.push(...(page.StreamDescription?.Shards ?? []));
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return listed;
  }

  return {
    streamArn: () => checkpoints!.streamArn,
    /** Lists the shards again when it is time (or when `soon` asked for it). */
    async refreshIfDue(): Promise<void> {
      if (Date.now() - lastRefresh > SHARD_REFRESH_MS) await refresh();
    },
    /** Asks for a fresh listing on the next round: a shard was closed or deleted. */
    soon(): void {
      lastRefresh = 0;
    },
    /** Shards to read now: not finished, and whose parent (if still listed) has been read to its end. */
    ready(): ShardState[] {
      return [...shards.values()].filter((shard) => {
        if (checkpoints!.shards[shard.shardId]?.finished) return false;
        const parent = shard.parentShardId;
        return !parent || !shards.has(parent) || checkpoints!.shards[parent]?.finished === true;
      });
    },
    /** An iterator after the shard's checkpoint (TRIM_HORIZON without one, or when the records there were trimmed). */
    async iteratorFor(shard: ShardState): Promise<string | undefined> {
      const after = checkpoints!.shards[shard.shardId]?.sequenceNumber;
      const base = { StreamArn: checkpoints!.streamArn, ShardId: shard.shardId };
      try {
        const position = after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' as const };
        return (await streams.send(new GetShardIteratorCommand({ ...base, ...position }))).ShardIterator;
      } catch (error) {
        if ((error as { name?: string }).name !== 'TrimmedDataAccessException') throw error;
        log.error('Records past the checkpoint were trimmed from the stream and are lost', { shardId: shard.shardId });
        return (await streams.send(new GetShardIteratorCommand({ ...base, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
      }
    },
    /** Everything up to and including `sequenceNumber` is done. */
    async commit(shardId: string, sequenceNumber: string): Promise<void> {
      progress(shardId).sequenceNumber = sequenceNumber;
      await save();
    },
    /** The shard is closed and read to its end; its children may be read next. */
    async finish(shardId: string): Promise<void> {
      progress(shardId).finished = true;
      await save();
      lastRefresh = 0;
    },
  };
}
