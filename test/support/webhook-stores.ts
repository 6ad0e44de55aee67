import { makeDeliveryApiStore, makeDeliveryWorkerStore } from '../../shared/webhooks/delivery-store.ts';
import { makeDeliveryFanoutStore, makeDeliverySweeperStore } from '../../shared/webhooks/delivery-pipeline-store.ts';
import { makeRecoveryApiStore, makeRecoverySweeperStore } from '../../shared/webhooks/delivery-recovery.ts';
import { makeRecoveryWorkerStore } from '../../shared/webhooks/delivery-recovery-worker.ts';
import { makeStatsRollupStore } from '../../shared/webhooks/delivery-rollup.ts';
import { makeDeliveryStatsReader } from '../../shared/webhooks/delivery-stats-read.ts';
import { makeEndpointApiStore } from '../../shared/webhooks/endpoint-store.ts';
import { makeEndpointFanoutStore, makeEndpointWorkerStore } from '../../shared/webhooks/endpoint-pipeline-store.ts';
import type { Pager } from '../../shared/platform/store/pager.ts';
import type { Db } from '../../shared/platform/store/send.ts';

/**
 * The webhooks' stores, for tableStores (table-stores.ts): by their modules for now, since the webhooks feature's
 * stores move behind their own index.ts in a change of their own (issue 47). Spread as makeStore spread them, not
 * composed: the API's and the worker's stores each carry the same readers (getEndpoint from makeEndpointReader;
 * getDelivery, failPending and pendingDeliveryIds in both delivery stores), which composeStores refuses as defined
 * twice; that change settles which store owns them.
 */
export function webhookStores(db: Db, pager: Pager) {
  return {
    ...makeEndpointApiStore(db, pager),
    ...makeEndpointFanoutStore(db),
    ...makeEndpointWorkerStore(db),
    ...makeDeliveryApiStore(db, pager),
    ...makeDeliveryFanoutStore(db),
    ...makeDeliveryWorkerStore(db),
    ...makeDeliverySweeperStore(db),
    ...makeRecoveryApiStore(db),
    ...makeRecoveryWorkerStore(db),
    ...makeRecoverySweeperStore(db),
    ...makeDeliveryStatsReader(db),
    ...makeStatsRollupStore(db),
  };
}
