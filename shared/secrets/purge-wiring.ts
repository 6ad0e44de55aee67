import type { Clock } from '../platform/clock.ts';
import type { Db } from '../platform/store/send.ts';
import { makePurgeService } from './purge-service.ts';
import { makePurgeStore } from './purge-store.ts';

/** The purger's service over the purge store, as its function (functions/secret-purger) builds it once per container. */
export function purgeServiceOf(deps: { db: Db; clock: Clock }) {
  return makePurgeService({ store: makePurgeStore(deps.db), clock: deps.clock });
}
