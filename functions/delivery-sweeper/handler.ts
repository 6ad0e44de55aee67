import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { immediateQueueFromConfig } from '../../shared/webhooks/immediate-queue.ts';
import { makeSweeper } from '../../shared/webhooks/sweeper.ts';
import { makeDeliverySweeperStore } from '../../shared/webhooks/delivery-pipeline-store.ts';
import { makeDeletedSecretStore } from '../../shared/secrets/deleted-secret-store.ts';
import { makeRecoverySweeperStore } from '../../shared/webhooks/delivery-recovery.ts';

const { config, db, pager, clock } = runtime();
const store = { ...makeDeliverySweeperStore(db), ...makeDeletedSecretStore(db, pager), ...makeRecoverySweeperStore(db) };
const queue = immediateQueueFromConfig(config, clock);
const sweep = makeSweeper({
  store,
  clock,
  graceMs: config.webhooks.sweepGraceMs,
  enqueue: (m, o) => queue.enqueue(m, o),
  enqueueRecovery: (m) => queue.enqueueRecovery(m),
});

/**
 * Lambda entry of the sweeper, run every 5 minutes: re-queues pending deliveries whose message was lost, and purges
 * deleted secrets whose recovery window has ended (and purges a crash interrupted).
 */
export const handler = async (): Promise<{ requeued: number; purged: number; recoveriesRestarted: number }> => {
  const swept = await sweep();
  // A purge is mostly a recovery window that ended (expected work); a re-queued delivery is always lost work.
  if (swept.requeued > 0 || swept.recoveriesRestarted > 0) logger.warn('sweeper found lost work', swept);
  else if (swept.purged > 0) logger.info('sweeper purged deleted secrets', swept);
  return swept;
};
