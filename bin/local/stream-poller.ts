import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, GetRecordsCommand, type _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../../shared/platform/logger.ts';
import { describeError, failedItems, invokeLambda, type BatchHandler } from './sqs-poller.ts';
import { toLambdaRecord } from './stream-records.ts';
import { runWithRetries, type RetryPolicy } from './stream-retries.ts';
import { makeShardTracker, type ShardState } from './stream-shards.ts';

/** The table, the handler, the checkpoint file and the event source mapping's settings. */
export interface StreamPollerOptions extends Partial<RetryPolicy> {
  endpoint: string;
  tableName: string;
  handler: BatchHandler<DynamoDBStreamEvent, DynamoDBBatchResponse>;
  /** JSON file of per-shard checkpoints; a restarted poller resumes after them (TRIM_HORIZON when there are none). */
  checkpointFile: string;
  /** Records per invocation (default 100). */
  batchSize?: number;
  /**
   * The event source mapping's filter: records it refuses are never handed to the handler (they are checkpointed
   * as read), and a batch with none left makes no invocation, as in Lambda.
   */
  filter?: (record: DynamoDBRecord) => boolean;
  /** Pause after a poll that found nothing (default 100 ms). */
  pollIntervalMs?: number;
  /** Name in the Lambda context and the logs (default `webhook-fanout`). */
  functionName?: string;
  /** Invocation timeout: past it the batch counts as failed (default 60 s). */
  timeoutMs?: number;
}

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
  const log = logger.child({ component: 'local-stream-poller', functionName });
  const abort = new AbortController();
  const pause = (ms: number) => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? 5,
    bisectOnError: options.bisectOnError ?? true,
    retryBaseMs: options.retryBaseMs ?? 200,
  };
  const tracker = await makeShardTracker({ dynamodb, streams, tableName: options.tableName, checkpointFile: options.checkpointFile, log });

  /** Reads one batch of a shard and hands it to the handler; answers whether there were records. */
  async function pollShard(shard: ShardState): Promise<boolean> {
    shard.iterator ??= await tracker.iteratorFor(shard);
    let answer;
    try {
      answer = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: options.batchSize ?? 100 }));
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (!['ExpiredIteratorException', 'TrimmedDataAccessException', 'ResourceNotFoundException'].includes(name)) throw error;
      // A fresh iterator from the checkpoint (or the next refresh dropping a deleted shard) takes over.
      shard.iterator = undefined;
      if (name === 'ResourceNotFoundException') tracker.soon();
      return false;
    }
    const records = answer.Records ?? [];
    if (records.length > 0 && !(await handleRecords(shard, records))) return true;
    shard.iterator = answer.NextShardIterator;
    // A closed shard may have children to read next.
    if (!answer.NextShardIterator) await tracker.finish(shard.shardId);
    return records.length > 0;
  }

  /** Runs the batch through the retry policy; false when stopped half-way (the checkpoint says where). */
  async function handleRecords(shard: ShardState, records: StreamRecord[]): Promise<boolean> {
    const event = records.map((record) => toLambdaRecord(record, tracker.streamArn())).filter((record) => options.filter?.(record) ?? true);
    if (event.length === 0) {
      await tracker.commit(shard.shardId, records.at(-1)!.dynamodb!.SequenceNumber!);
      return true;
    }
    const finished = await runWithRetries(event, policy, {
      invoke: async (chunk) => {
        const response = await invokeLambda(options.handler, { Records: chunk }, functionName, options.timeoutMs ?? 60_000);
        return failedItems(
          response,
          chunk.map((record) => record.dynamodb?.SequenceNumber ?? ''),
        );
      },
      commit: (record) => tracker.commit(shard.shardId, record.dynamodb!.SequenceNumber!),
      onFailure: ({ records: count, attempt, error }) =>
        log.warn('Stream batch failed', {
          shardId: shard.shardId,
          records: count,
          attempt,
          ...(error ? describeError(error) : { errorName: 'BatchItemFailures' }),
        }),
      onSkip: (record) =>
        log.error('Skipping a stream record after its last retry', {
          shardId: shard.shardId,
          eventID: record.eventID,
          sequenceNumber: record.dynamodb?.SequenceNumber,
        }),
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
        await tracker.refreshIfDue();
        let worked = false;
        for (const shard of tracker.ready()) worked = (await pollShard(shard)) || worked;
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
