/*
 * A recovery's runner and store, in a module of their own that the handler imports with the first recovery message:
 * one chunk split point, so a cold start does without them (lib/lambda-bundle.ts). Imported from their files: a
 * cold start reaches shared/webhooks/pipeline.ts, which may not carry them (shared/webhooks/index.ts says why).
 */
import type { Db } from '../../shared/platform/store/send.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import { makeRecoveryWorkerStore } from '../../shared/webhooks/recovery/recovery-worker-store.ts';
import type { DeliveryWorkerStore, EndpointFanoutStore, EndpointWorkerStore } from '../../shared/webhooks/pipeline.ts';

export { makeRecoveryRunner } from '../../shared/webhooks/recovery/recovery-runner.ts';

/** The worker's stores whole: those of its cold start (`store`) with the recovery's. */
export function withRecoveryStore(db: Db, store: EndpointWorkerStore & EndpointFanoutStore & DeliveryWorkerStore) {
  return composeStores(store, makeRecoveryWorkerStore(db));
}
