import { logger } from '../../shared/logger.ts';
import { runtime } from '../../shared/runtime.ts';
import { immediateQueueFromConfig } from '../../shared/webhooks/immediate-queue.ts';
import { makeSweeper } from '../../shared/webhooks/sweeper.ts';
import { makeDeliverySweeperStore } from '../../shared/store/deliveries.ts';
import { makeSecretStore } from '../../shared/store/secrets.ts';

const { config, db, pager, clock } = runtime();
const store = { ...makeDeliverySweeperStore(db), ...makeSecretStore(db, pager) };
const queue = immediateQueueFromConfig(config, clock);
const sweep = makeSweeper({ store, clock, graceMs: config.webhooks.sweepGraceMs, enqueue: (m, o) => queue.enqueue(m, o) });

/**
 * Lambda entry of the sweeper, run every 5 minutes: re-queues pending deliveries whose message was lost and
 * finishes secret purges a crash interrupted.
 */
export const handler = async (): Promise<{ requeued: number; purged: number }> => {
  const swept = await sweep();
  if (swept.requeued > 0 || swept.purged > 0) logger.warn('sweeper found lost work', swept);
  return swept;
};
