import { makeSqsClient } from '../platform/clients/sqs.ts';
import type { Config } from '../platform/config.ts';
import { makeSyncQueue, type SyncQueue } from './sync-queue.ts';
import { loadSyncSettings } from './sync-settings.ts';

/**
 * The sync queue over SQS as a function that queues syncs builds it: the URL from `SYNC_QUEUE_URL` (missing: it fails
 * naming it), the local endpoint from the webhooks' `SQS_ENDPOINT`, as the delivery queue's.
 */
export function syncQueueFromConfig(config: Config, env: NodeJS.ProcessEnv = process.env): SyncQueue {
  const { queueUrl } = loadSyncSettings(env);
  if (!queueUrl) throw new Error('Invalid configuration: SYNC_QUEUE_URL is required to queue syncs');
  return makeSyncQueue({ sqs: makeSqsClient({ endpoint: config.webhooks.sqsEndpoint }), queueUrl });
}
