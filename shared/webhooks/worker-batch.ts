import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { Logger } from '../logger.ts';
import { openConnectionPool, type ConnectionPool } from './connection-pool.ts';
import { parseQueueMessage, type RecoveryMessage } from './delivery-message.ts';
import type { AttemptResult } from './sender.ts';
import { makeWorker, type WorkerDeps } from './worker.ts';

export interface WorkerBatchDeps extends Omit<WorkerDeps, 'send'> {
  /** One guarded attempt over the invocation's connections. */
  send: (request: { url: string; body: string; headers: Record<string, string> }, connections: ConnectionPool) => Promise<AttemptResult>;
  log: Logger;
  /** Runs one step of a recovery of failed deliveries (shared/webhooks/recovery.ts). */
  recover: (message: RecoveryMessage) => Promise<unknown>;
}

/**
 * One worker invocation (SQS, ReportBatchItemFailures): one attempt per message, in parallel (or one step of a
 * recovery, for a recovery's message). A message that cannot
 * be read, or whose processing failed, is reported so SQS retries it and, in the end, moves it to the dead-letter
 * queue. The invocation's attempts share keep-alive connections per checked address, and every socket is destroyed
 * before it answers, so none is left open across a freeze.
 */
export function makeWorkerBatch(deps: WorkerBatchDeps) {
  return async (records: readonly SQSRecord[]): Promise<SQSBatchResponse> => {
    const connections = openConnectionPool();
    const work = makeWorker({ ...deps, send: (request) => deps.send(request, connections) });
    const results = await Promise.allSettled(
      records.map(async (record) => {
        const parsed = parseQueueMessage(record.body);
        if (!parsed) throw new Error('unreadable delivery message');
        if (parsed.kind === 'recovery') return deps.recover(parsed.message);
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
