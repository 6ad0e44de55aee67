import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Dependent } from '../references/index.ts';
import type { Db } from '../platform/store/send.ts';
import { makeSyncTrigger, type StreamedAudit } from './pipeline/sync-trigger.ts';
import { makeSyncQueue } from './sync-queue.ts';
import { loadSyncSettings } from './sync-settings.ts';
import { makeSyncReader } from './sync-store.ts';

/**
 * The syncs' trigger as the stream fan-out builds it once per container (decisions.md v1.4, "Syncs";
 * functions/webhook-fanout), beside the webhooks'. The worker is built apart (worker-wiring.ts).
 */

/**
 * The trigger over the table and the sync queue; without a sync queue configured (a stack from before syncs), a
 * change queues nothing and says so once.
 */
export function syncTriggerOf(deps: {
  db: Db;
  sqs: SQSClient;
  dependentsOf: (audit: StreamedAudit) => Promise<readonly Dependent[]>;
  warn: (message: string) => void;
}) {
  const { queueUrl } = loadSyncSettings();
  if (!queueUrl) {
    deps.warn('SYNC_QUEUE_URL is not set: changes are pushed to no sync');
    return async () => Infinity;
  }
  const reader = makeSyncReader(deps.db);
  return makeSyncTrigger({
    listSyncs: (workspaceId) => reader.listSyncsOfWorkspace(workspaceId),
    dependentsOf: deps.dependentsOf,
    queue: makeSyncQueue({ sqs: deps.sqs, queueUrl }),
  });
}
