import type { SQSClient } from '@aws-sdk/client-sqs';
import type { StreamedAuditEntry } from '../../audit/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/store/send.ts';
import { makeAuditStreamReader } from '../stream-store.ts';
import { makeStreamDispatch, makeStreamRouting } from './stream-dispatch.ts';
import { makeStreamQueue } from './stream-queue.ts';

/**
 * Audit streams' side of the stream fan-out as its function builds it once per container (functions/webhook-fanout),
 * beside the webhooks' and the syncs': apart from the worker (stream-worker.ts), so neither bundle carries the other.
 */

/** The audit stream queue from the environment (AUDIT_STREAM_QUEUE_URL, set by the CDK and the local stack). */
export function auditStreamQueueUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.AUDIT_STREAM_QUEUE_URL?.trim() || undefined;
}

/**
 * The dispatch of a stream batch's inserted audit entries (by record) to the streams of their workspaces; answers the
 * first record it could not finish. Without a queue configured (a stack from before audit streams) it queues nothing
 * and says so once.
 */
export function streamDispatchOf(deps: {
  db: Db;
  sqs: SQSClient;
  clock: Clock;
  warn: (message: string, context?: Record<string, unknown>) => void;
}): (batch: readonly (readonly StreamedAuditEntry[])[]) => Promise<number> {
  const queueUrl = auditStreamQueueUrl();
  if (!queueUrl) {
    deps.warn('AUDIT_STREAM_QUEUE_URL is not set: audit entries are delivered to no stream');
    return async () => Number.POSITIVE_INFINITY;
  }
  return makeStreamDispatch({
    streamsOf: makeStreamRouting(makeAuditStreamReader(deps.db), deps.clock),
    queue: makeStreamQueue({ sqs: deps.sqs, queueUrl }),
    warn: (message, context) => deps.warn(message, context),
  });
}
