/*
 * What the worker loads on first use: a recovery's runner and store (with the first recovery message) and the
 * statistics rollup and its store (with the first rollup message), in one module that the handler imports on the first
 * of them: one chunk split point, so a cold start does without them (lib/lambda-bundle.ts). Both come through
 * shared/webhooks/on-first-use.ts, which puts them in one chunk either way.
 */
import type { Db } from '../../shared/platform/store/send.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import { makeRecoveryWorkerStore } from '../../shared/webhooks/on-first-use.ts';
import type { DeliveryWorkerStore, EndpointFanoutStore, EndpointWorkerStore } from '../../shared/webhooks/pipeline.ts';

export { makeRecoveryRunner, makeStatsRollup, makeStatsRollupStore } from '../../shared/webhooks/on-first-use.ts';

/** The worker's stores whole, for a recovery: those of its cold start (`store`) with the recovery's. */
export function withRecoveryStore(db: Db, store: EndpointWorkerStore & EndpointFanoutStore & DeliveryWorkerStore) {
  return composeStores(store, makeRecoveryWorkerStore(db));
}
