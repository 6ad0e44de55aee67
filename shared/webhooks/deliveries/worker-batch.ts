import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { Logger } from '../../platform/logger.ts';
import { openConnectionPool, type ConnectionPool } from '../../net/connection-pool.ts';
import { parseQueueMessage, type QueueMessage, type RecoveryMessage } from './delivery-message.ts';
import { parseStatsRollupMessage, type StatsRollupMessage } from '../stats/stats-message.ts';
import type { AttemptResult } from './sender.ts';
import { makeWorker, type WorkerDeps } from './worker.ts';
import { readAhead } from './worker-reads.ts';
import type { EndpointFanoutStore } from '../endpoints/endpoint-pipeline-store.ts';

export interface WorkerBatchDeps extends Omit<WorkerDeps, 'send' | 'store'> {
  store: WorkerDeps['store'] & Pick<EndpointFanoutStore, 'listEndpoints'>;
  /** One guarded attempt over the invocation's connections. */
  send: (request: { url: string; body: string; headers: Record<string, string> }, connections: ConnectionPool) => Promise<AttemptResult>;
  log: Logger;
  /** Runs one step of a recovery of failed deliveries (shared/webhooks/recovery/recovery-runner.ts). */
  recover: (message: RecoveryMessage) => Promise<unknown>;
  /** Rolls a workspace's delivery statistics up (shared/webhooks/stats/stats-rollup.ts). */
  rollUp: (message: StatsRollupMessage) => Promise<unknown>;
}

/**
 * One worker invocation (SQS, ReportBatchItemFailures): one attempt per message, in parallel (or one step of a
 * recovery, or a statistics rollup, for their messages), their first reads made together (`readAhead`: one Query
 * for a workspace's endpoints when many of them are in the batch). A message that cannot
 * be read, or whose processing failed, is reported so SQS retries it and, in the end, moves it to the dead-letter
 * queue. The invocation's attempts share keep-alive connections per checked address, and every socket is destroyed
 * before it answers, so none is left open across a freeze.
 */
export function makeWorkerBatch(deps: WorkerBatchDeps) {
  return async (records: readonly SQSRecord[]): Promise<SQSBatchResponse> => {
    const connections = openConnectionPool();
    const messages = records.map((record): QueueMessage | undefined => {
      const rollup = parseStatsRollupMessage(record.body);
      return rollup ? { kind: 'rollup', message: rollup } : parseQueueMessage(record.body);
    });
    const reads = await readAhead(
      deps.store,
      messages.flatMap((parsed) => (parsed?.kind === 'delivery' ? [parsed.message] : [])),
    );
    const work = makeWorker({ ...deps, store: { ...deps.store, ...reads }, send: (request) => deps.send(request, connections) });
    const results = await Promise.allSettled(
      records.map(async (record, i) => {
        const parsed = messages[i];
        if (!parsed) throw new Error('unreadable delivery message');
        if (parsed.kind === 'recovery') return deps.recover(parsed.message);
        if (parsed.kind === 'rollup') return deps.rollUp(parsed.message);
        return work(parsed.message, { redelivered: Number(record.attributes?.ApproximateReceiveCount ?? 1) > 1 });
      }),
    ).finally(() => connections.close());
    deps.metrics.flush();
    const batchItemFailures = results.flatMap((result, i) => {
      if (result.status === 'fulfilled') return [];
      deps.log.error('delivery attempt failed', { messageId: records[i]!.messageId, errorName: (result.reason as Error)?.name });
      return [{ itemIdentifier: records[i]!.messageId }];
    });
    return { batchItemFailures };
  };
}
