import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import {
  immediateQueueFromConfig,
  makeDeliverySweeperStore,
  makeRecoverySweeperStore,
  makeSweeper,
} from '../../shared/webhooks/pipeline.ts';

const { config, db, clock } = runtime();
const store = composeStores(makeDeliverySweeperStore(db), makeRecoverySweeperStore(db));
const queue = immediateQueueFromConfig(config, clock);
const sweep = makeSweeper({
  store,
  clock,
  graceMs: config.webhooks.sweepGraceMs,
  enqueue: (m, o) => queue.enqueue(m, o),
  enqueueRecovery: (m) => queue.enqueueRecovery(m),
});

/**
 * Lambda entry of the sweeper, run every 5 minutes: re-queues pending deliveries whose message was lost, and
 * restarts recoveries that stopped moving.
 */
export const handler = async (): Promise<{ requeued: number; recoveriesRestarted: number }> => {
  const swept = await sweep();
  // Anything found is lost work: a message that never arrived.
  if (swept.requeued > 0 || swept.recoveriesRestarted > 0) logger.warn('sweeper found lost work', swept);
  return swept;
};
