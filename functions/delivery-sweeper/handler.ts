import { logger } from '../../shared/logger.ts';
import { runtime } from '../../shared/runtime.ts';
import { immediateQueueFromConfig } from '../../shared/webhooks/runtime.ts';
import { makeSweeper } from '../../shared/webhooks/sweeper.ts';
import { makeDeliveryStore } from '../../shared/store/deliveries.ts';

const { config, db, pager, clock } = runtime();
const store = makeDeliveryStore(db, pager);
const queue = immediateQueueFromConfig(config, clock);
const sweep = makeSweeper({ store, clock, graceMs: config.webhooks.sweepGraceMs, enqueue: (m, o) => queue.enqueue(m, o) });

/** Lambda entry of the sweeper, run every 5 minutes: re-queues pending deliveries whose message was lost. */
export const handler = async (): Promise<{ requeued: number }> => {
  const requeued = await sweep();
  if (requeued > 0) logger.warn('re-queued lost deliveries', { requeued });
  return { requeued };
};
