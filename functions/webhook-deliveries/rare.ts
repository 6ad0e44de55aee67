/*
 * What the rare routes of webhook-deliveries use (test events, recoveries, statistics), in one module that the
 * handler imports on the first of them: one chunk split point, so the code they share with a cold start does not
 * spread over more chunks a cold start must read.
 */
import type { Db } from '../../shared/platform/store/send.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import type { DeliveryApiStore, EndpointReader } from '../../shared/webhooks/index.ts';
import { makeDeliveryStatsReader, makeRecoveryApiStore } from '../../shared/webhooks/operations.ts';

export { makeDeliveryStatsService, makeWebhookOperations } from '../../shared/webhooks/operations.ts';

/** The function's stores whole: those of its cold start (`store`) with the recoveries' and the statistics' reads. */
export function withRareStores(db: Db, store: EndpointReader & DeliveryApiStore) {
  return composeStores(store, makeRecoveryApiStore(db), makeDeliveryStatsReader(db));
}
