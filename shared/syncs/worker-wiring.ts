import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/logger.ts';
import { countLine, SYNC_FAILING_METRIC } from '../platform/metrics-env.ts';
import type { Db } from '../platform/store/send.ts';
import type { DestinationFactory } from './destinations/destination.ts';
import { makeSyncPush } from './pipeline/sync-push.ts';
import { makeSyncReveal, type EnvironmentLoad } from './pipeline/sync-reveal.ts';
import { makeSyncRunStore, type RunnableSync } from './pipeline/sync-run-store.ts';
import { makeSyncQueue, parseSyncMessage } from './sync-queue.ts';
import { loadSyncSettings } from './sync-settings.ts';

/**
 * The sync worker as its function builds it once per container (decisions.md v1.4, "Syncs"; functions/sync-worker):
 * apart from the fan-out's trigger (pipeline-wiring.ts), so neither function's bundle carries the other's code.
 */

/** What the sync worker is built from besides the table: the secrets' environment load and how destinations are made. */
export interface SyncWorkerParts {
  db: Db;
  sqs: SQSClient;
  clock: Clock;
  log: Logger;
  /** WEBHOOK_TIME_SCALE (config.webhooks.timeScale). */
  timeScale: number;
  /** The webhooks' SSRF guard's open ranges (config.webhooks.allowPrivateCidrs). */
  allowPrivateCidrs: string | undefined;
  /** The secrets service's environment load (shared/secrets, secretServiceOf(...).revealEnvironment). */
  load: EnvironmentLoad;
  /** The destinations' factory; default shared/syncs/destinations/index.ts, loaded with the first push. */
  makeDestination?: DestinationFactory;
  /** Opens a sync's sealed GitHub token (the service's cipher under the sync token's context). */
  openToken: (workspaceId: string, sync: RunnableSync) => Promise<string | undefined>;
}

/**
 * The sync worker's handler over its parts (functions/sync-worker): each SQS message one push; a message it cannot
 * read is logged and dropped; a push that throws past its own failure handling (the table unreachable) is reported
 * failed, so SQS offers it again after its visibility timeout and, after its receives, moves it to the dead-letter queue.
 */
export function syncWorkerOf(parts: SyncWorkerParts) {
  const settings = loadSyncSettings();
  const queueUrl = settings.queueUrl;
  if (!queueUrl) throw new Error('Invalid configuration: SYNC_QUEUE_URL is required for the sync worker');
  const queue = makeSyncQueue({ sqs: parts.sqs, queueUrl });
  const push = makeSyncPush({
    runs: makeSyncRunStore(parts.db),
    reveal: makeSyncReveal(parts.load),
    destinationOf: async (sync, workspaceId) =>
      (parts.makeDestination ?? loadedDestination)(sync.destination, {
        workspaceId,
        syncId: sync.id,
        token: await parts.openToken(workspaceId, sync),
        awsEndpoint: settings.awsEndpoint,
        ownAccount: settings.ownAccount,
        roleArns: settings.roleArns.map((pattern) => pattern.replaceAll('${workspaceId}', workspaceId)),
        allowPrivateCidrs: parts.allowPrivateCidrs ?? '',
      }),
    queue,
    clock: parts.clock,
    log: parts.log,
    timeScale: parts.timeScale,
    onFailing: () => writeFailingMetric(),
  });
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failed = await Promise.all(
      event.Records.map(async (record) => {
        const message = parseSyncMessage(record.body);
        if (!message) {
          parts.log.error('sync message not understood', { messageId: record.messageId });
          return undefined;
        }
        try {
          await push(message);
          return undefined;
        } catch (error) {
          parts.log.error('sync push could not run', { messageId: record.messageId, errorName: (error as Error | null)?.name });
          return { itemIdentifier: record.messageId };
        }
      }),
    );
    return { batchItemFailures: failed.filter((failure) => failure !== undefined) };
  };
}

/** A sync became failing (lib/service-metrics.ts alarms on it). */
const writeFailingMetric = () => void process.stdout.write(countLine(SYNC_FAILING_METRIC));

/**
 * The destinations' factory, loaded with the first push: imported statically here, it would put the SDK code the
 * destinations' chunks share into the cold start of every function that imports this module (the stream fan-out).
 */
const loadedDestination: DestinationFactory = async (destination, context) =>
  (await import('./destinations/index.ts')).makeDestination(destination, context);
