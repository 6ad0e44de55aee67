import { makeDeliveryApiStore, makeEndpointApiStore } from '../../shared/webhooks/index.ts';
import {
  makeDeliveryFanoutStore,
  makeDeliverySweeperStore,
  makeDeliveryWorkerStore,
  makeEndpointFanoutStore,
  makeEndpointWorkerStore,
  makeRecoverySweeperStore,
} from '../../shared/webhooks/pipeline.ts';
import { makeDeliveryStatsReader, makeRecoveryApiStore } from '../../shared/webhooks/operations.ts';
import { makeRecoveryWorkerStore, makeStatsRollupStore } from '../../shared/webhooks/on-first-use.ts';
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
