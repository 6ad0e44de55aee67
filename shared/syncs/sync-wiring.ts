import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import type { SyncQueue } from './sync-queue.ts';
import { makeSyncService } from './sync-service.ts';
import { makeSyncStore } from './sync-store.ts';

export type { SyncService } from './sync-service.ts';
/** What the syncs routes accept and answer, for them and the API description. */
export { destinationInputSchema, destinationPatchSchema, keysPatternSchema, syncAnswer } from './sync-schemas.ts';

/**
 * The syncs service as its function builds it once per container. The queue and the SSRF guard load on their first
 * use (a create, run or resume; a GitHub `apiUrl`), so a list or a read carries neither SQS nor the guard, and a
 * missing SYNC_QUEUE_URL fails the first route that queues, naming it, not every cold start.
 */
export function syncServiceOf(deps: { config: Config; db: Db; pager: Pager; cipher: Pick<Cipher, 'encrypt'>; clock: Clock }) {
  const { config, db, pager, cipher, clock } = deps;
  const loadQueue = loadOnce(async () => (await import('./sync-queue-target.ts')).syncQueueFromConfig(config));
  const queue: SyncQueue = { enqueue: async (message, delay) => (await loadQueue()).enqueue(message, delay) };
  const loadCheck = loadOnce(async () => (await import('./sync-url-check.ts')).syncUrlCheck(config.webhooks.allowPrivateCidrs));
  return makeSyncService({ store: makeSyncStore(db, pager), cipher, clock, queue, checkUrl: async (url) => (await loadCheck())(url) });
}
