import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { syncServiceOf } from '../../shared/syncs/sync-wiring.ts';
import { makeSyncRoutes } from './routes.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();

// Only a GitHub token seals (a create or a PATCH with a new token): the KMS client loads on the first of them.
const cipher = cipherOnFirstUse(config, 100);

/** Lambda entry of the syncs route group. */
export const handler = makeRouteGroupHandler(makeSyncRoutes(syncServiceOf({ config, db, pager, cipher, clock })), {
  authenticate,
  idempotency,
});
