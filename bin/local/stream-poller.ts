import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type AttributeValue as SdkAttributeValue,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/logger.ts';
import { writeJsonAtomic } from './local-scheduler.ts';
import { describeError, failedItems, invokeLambda, type BatchHandler } from './sqs-poller.ts';

/** The checkpoint file: per shard, the last record handled (or skipped), and whether the shard is closed and read. */
export interface StreamCheckpoints {
  version: 1;
  streamArn: string;
  shards: Record<string, { sequenceNumber?: string; finished?: boolean }>;
}

/** Lambda delivers images as JSON: binary values base64-encoded, everything else as DynamoDB Streams returns it. */
export function toLambdaAttributeValue(value: SdkAttributeValue): AttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item).toString('base64')) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttributeValue) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  return value as AttributeValue;
}

function toLambdaImage(image: Record<string, SdkAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaAttributeValue(value)]));
}

/** One stream record as Lambda puts it in a DynamoDBStreamEvent (creation time in epoch seconds). */
export function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const data = record.dynamodb ?? {};
  const created = data.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    dynamodb: {
      ...(created ? { ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) } : {}),
      ...(data.Keys ? { Keys: toLambdaImage(data.Keys) } : {}),
      ...(data.NewImage ? { NewImage: toLambdaImage(data.NewImage) } : {}),
      ...(data.OldImage ? { OldImage: toLambdaImage(data.OldImage) } : {}),
      SequenceNumber: data.SequenceNumber,
      SizeBytes: data.SizeBytes,
      StreamViewType: data.StreamViewType,
    },
    eventSourceARN: streamArn,
    ...(record.userIdentity ? { userIdentity: { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId } } : {}),
  };
}

/** How failed batches are retried; the defaults match the deployed event source mapping. */
export interface RetryPolicy {
  /** Retries of a batch (or single record) before it is skipped (default 5, the CDK's `retryAttempts`). */
  maxRetries: number;
  /** Split a failing batch in two and retry each half, down to single records (default true). */
  bisectOnError: boolean;
  /** First retry delay, doubled each time up to 5 s (default 200 ms). */
  retryBaseMs: number;
}

interface RetryHooks {
  /** Invokes the handler; answers the failed sequence numbers or 'all' (an invalid response), or throws. */
  invoke(chunk: DynamoDBRecord[]): Promise<Set<string> | 'all'>;
  /** Records that everything up to and including `record` is done. */
  commit(record: DynamoDBRecord): Promise<void>;
  onFailure(failure: { records: number; attempt: number; error: unknown }): void;
  onSkip(record: DynamoDBRecord): void;
  pause(ms: number): Promise<void>;
  stopped(): boolean;
}

type Outcome = { kind: 'ok' } | { kind: 'partial'; index: number } | { kind: 'error'; error: unknown };

async function attempt(chunk: DynamoDBRecord[], hooks: RetryHooks): Promise<Outcome> {
  try {
    const failed = await hooks.invoke(chunk);
    if (failed === 'all') return { kind: 'error', error: new Error('Invalid batch response: an itemIdentifier is not in the batch') };
    if (failed.size === 0) return { kind: 'ok' };
    return { kind: 'partial', index: chunk.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? '')) };
  } catch (error) {
    return { kind: 'error', error };
  }
}

/**
 * Lambda's stream retry rules, bounded. A thrown error (or an invalid response) splits a batch in two, each half
 * retried on its own down to single records; splitting uses up no retries. A batch reporting failed items commits the
 * records before the lowest failed one and retries from it. Past `maxRetries` the record that blocks the shard (the
 * whole batch when bisecting is off) is logged and skipped, as Lambda discards records after MaximumRetryAttempts.
 * Records stay in order throughout. Answers false when stopped before the end.
 */
export async function runWithRetries(records: DynamoDBRecord[], policy: RetryPolicy, hooks: RetryHooks): Promise<boolean> {
  const pending: DynamoDBRecord[][] = [records];
  while (pending.length > 0) {
    let chunk = pending.shift()!;
    let failures = 0;
    while (chunk.length > 0) {
      if (hooks.stopped()) return false;
      const outcome = await attempt(chunk, hooks);
      if (outcome.kind === 'ok') {
        await hooks.commit(chunk.at(-1)!);
        break;
      }
      if (outcome.kind === 'error' && policy.bisectOnError && chunk.length > 1) {
        pending.unshift(chunk.slice(Math.ceil(chunk.length / 2)));
        chunk = chunk.slice(0, Math.ceil(chunk.length / 2));
        continue;
      }
      if (outcome.kind === 'partial' && outcome.index > 0) {
        await hooks.commit(chunk[outcome.index - 1]!);
        chunk = chunk.slice(outcome.index);
        failures = 0;
      }
      failures += 1;
      hooks.onFailure({ records: chunk.length, attempt: failures, error: outcome.kind === 'error' ? outcome.error : undefined });
      if (failures <= policy.maxRetries) {
        await hooks.pause(Math.min(5_000, policy.retryBaseMs * 2 ** (failures - 1)));
        continue;
      }
      const skipped = outcome.kind === 'partial' || policy.bisectOnError ? chunk.slice(0, 1) : chunk;
      for (const record of skipped) hooks.onSkip(record);
      await hooks.commit(skipped.at(-1)!);
      chunk = chunk.slice(skipped.length);
      failures = 0;
    }
  }
  return true;
}

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

/** The table, the handler, the checkpoint file and the event source mapping's settings. */
export interface StreamPollerOptions extends Partial<RetryPolicy> {
  endpoint: string;
  tableName: string;
  handler: BatchHandler<DynamoDBStreamEvent, DynamoDBBatchResponse>;
  /** JSON file of per-shard checkpoints; a restarted poller resumes after them (TRIM_HORIZON when there are none). */
  checkpointFile: string;
  /** Records per invocation (default 100). */
  batchSize?: number;
  /** Pause after a poll that found nothing (default 100 ms). */
  pollIntervalMs?: number;
  /** Name in the Lambda context and the logs (default `webhook-fanout`). */
  functionName?: string;
  /** Invocation timeout: past it the batch counts as failed (default 60 s). */
  timeoutMs?: number;
}

interface ShardState {
  shardId: string;
  parentShardId: string | undefined;
  iterator: string | undefined;
}

const SHARD_REFRESH_MS = 5_000;

/**
 * Lambda's DynamoDB Streams event source mapping over DynamoDB Local: reads every shard in order (a child only after
 * its parent is read to the end), invokes the handler with real DynamoDBStreamEvent records and commits a checkpoint
 * after each handled batch. Failures follow `runWithRetries` (bisect, 5 retries, then skip and log), with
 * ReportBatchItemFailures. A table recreated with a new stream starts over at TRIM_HORIZON. `stop()` waits for the
 * batch in flight; an unfinished retry resumes from the checkpoint on the next start.
 */
export async function startStreamPoller(options: StreamPollerOptions): Promise<{ stop(): Promise<void> }> {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const dynamodb = new DynamoDBClient({ endpoint: options.endpoint, region: 'local', credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: 'local', credentials });
  const functionName = options.functionName ?? 'webhook-fanout';
  const log = logger.createChild({ persistentKeys: { component: 'local-stream-poller', functionName } });
  const abort = new AbortController();
  const pause = (ms: number) => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? 5,
    bisectOnError: options.bisectOnError ?? true,
    retryBaseMs: options.retryBaseMs ?? 200,
  };
  let checkpoints = await loadCheckpoints(options.checkpointFile);
  let shards = new Map<string, ShardState>();
  let lastRefresh = 0;

  const save = () => writeJsonAtomic(options.checkpointFile, checkpoints);
  const progress = (shardId: string) => (checkpoints!.shards[shardId] ??= {});

  /** Finds the table's stream and its shards; a new stream ARN drops every old checkpoint. */
  async function refreshShards(): Promise<void> {
    const table = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
    const streamArn = table.Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`Table ${options.tableName} has no stream`);
    if (checkpoints?.streamArn !== streamArn) {
      if (checkpoints) log.info('The table has a new stream; starting it from TRIM_HORIZON');
      checkpoints = { version: 1, streamArn, shards: {} };
      shards = new Map();
    }
    const listed: Shard[] = [];
    let start: string | undefined;
    do {
      const page = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      listed.push(...(page.StreamDescription?.Shards ?? []));
      start = page.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    const live = new Set(listed.map((shard) => shard.ShardId!));
    for (const id of Object.keys(checkpoints.shards)) if (!live.has(id)) delete checkpoints.shards[id];
    for (const shard of listed) {
      if (!shards.has(shard.ShardId!)) shards.set(shard.ShardId!, { shardId: shard.ShardId!, parentShardId: shard.ParentShardId, iterator: undefined });
    }
    for (const id of shards.keys()) if (!live.has(id)) shards.delete(id);
    lastRefresh = Date.now();
  }

  /** Shards to read now: not finished, and whose parent (if still listed) has been read to its end. */
  function readyShards(): ShardState[] {
    return [...shards.values()].filter((shard) => {
      if (checkpoints!.shards[shard.shardId]?.finished) return false;
      const parent = shard.parentShardId;
      return !parent || !shards.has(parent) || checkpoints!.shards[parent]?.finished === true;
    });
  }

  async function iteratorFor(shard: ShardState): Promise<string | undefined> {
    const after = checkpoints!.shards[shard.shardId]?.sequenceNumber;
    const base = { StreamArn: checkpoints!.streamArn, ShardId: shard.shardId };
    try {
      const input = after ? { ...base, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after } : { ...base, ShardIteratorType: 'TRIM_HORIZON' as const };
      return (await streams.send(new GetShardIteratorCommand(input))).ShardIterator;
    } catch (error) {
      if ((error as { name?: string }).name !== 'TrimmedDataAccessException') throw error;
      log.error('Records past the checkpoint were trimmed from the stream and are lost', { shardId: shard.shardId });
      return (await streams.send(new GetShardIteratorCommand({ ...base, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
    }
  }

  /** Reads one batch of a shard and hands it to the handler; answers whether there were records. */
  async function pollShard(shard: ShardState): Promise<boolean> {
    shard.iterator ??= await iteratorFor(shard);
    let answer;
    try {
      answer = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: options.batchSize ?? 100 }));
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (!['ExpiredIteratorException', 'TrimmedDataAccessException', 'ResourceNotFoundException'].includes(name)) throw error;
      // A fresh iterator from the checkpoint (or the next refresh dropping a deleted shard) takes over.
      shard.iterator = undefined;
      lastRefresh = name === 'ResourceNotFoundException' ? 0 : lastRefresh;
      return false;
    }
    const records = answer.Records ?? [];
    if (records.length > 0 && !(await handleRecords(shard, records))) return true;
    shard.iterator = answer.NextShardIterator;
    if (!answer.NextShardIterator) {
      progress(shard.shardId).finished = true;
      await save();
      lastRefresh = 0; // a closed shard may have children to read next
    }
    return records.length > 0;
  }

  /** Runs the batch through the retry policy; false when stopped half-way (the checkpoint says where). */
  async function handleRecords(shard: ShardState, records: StreamRecord[]): Promise<boolean> {
    const event = records.map((record) => toLambdaRecord(record, checkpoints!.streamArn));
    const finished = await runWithRetries(event, policy, {
      invoke: async (chunk) => {
        const response = await invokeLambda(options.handler, { Records: chunk }, functionName, options.timeoutMs ?? 60_000);
        return failedItems(response, chunk.map((record) => record.dynamodb?.SequenceNumber ?? ''));
      },
      commit: async (record) => {
        progress(shard.shardId).sequenceNumber = record.dynamodb!.SequenceNumber!;
        await save();
      },
      onFailure: ({ records: count, attempt, error }) =>
        log.warn('Stream batch failed', { shardId: shard.shardId, records: count, attempt, ...(error ? describeError(error) : { errorName: 'BatchItemFailures' }) }),
      onSkip: (record) => log.error('Skipping a stream record after its last retry', { shardId: shard.shardId, eventID: record.eventID, sequenceNumber: record.dynamodb?.SequenceNumber }),
      pause,
      stopped: () => abort.signal.aborted,
    });
    if (!finished) shard.iterator = undefined;
    return finished;
  }

  async function loop(): Promise<void> {
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        if (Date.now() - lastRefresh > SHARD_REFRESH_MS) await refreshShards();
        let worked = false;
        for (const shard of readyShards()) worked = (await pollShard(shard)) || worked;
        failures = 0;
        if (!worked) await pause(options.pollIntervalMs ?? 100);
      } catch (error) {
        failures += 1;
        log.warn('Polling the stream failed; backing off', { attempt: failures, ...describeError(error) });
        await pause(Math.min(5_000, 100 * 2 ** failures));
      }
    }
  }

  const running = loop();
  return {
    async stop() {
      abort.abort();
      await running;
      dynamodb.destroy();
      streams.destroy();
    },
  };
}
