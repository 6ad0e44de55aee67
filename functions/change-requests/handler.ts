import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { changeRequestServiceOf } from '../../shared/change-requests/change-request-wiring.ts';
import { makeChangeRequestRoutes } from './routes.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();

// Proposed values are sealed on open and unsealed on reveal and merge; a list or a review never loads KMS.
const cipher = cipherOnFirstUse(config, 100);

/** Lambda entry of the change-requests route group. */
export const handler = makeRouteGroupHandler(makeChangeRequestRoutes(changeRequestServiceOf({ config, db, pager, cipher, clock })), {
  authenticate,
  idempotency,
});
