import { cipherFromConfig } from '../../shared/crypto/from-config.ts';
import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeAccessKeyService } from '../../shared/services/access-keys.ts';
import { makeAccessKeyRoutes } from './routes.ts';
import { makeAccessKeyStore } from '../../shared/store/access-keys.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = makeAccessKeyStore(db, pager);
// A replayed creation carries the token: its recorded answer is sealed with the envelope cipher, never stored plain.
const cipher = cipherFromConfig(config, 100);

/** Lambda entry of the access-keys route group. */
export const handler = makeRouteGroupHandler(makeAccessKeyRoutes(makeAccessKeyService({ store, clock })), { authenticate, idempotency: { ...idempotency, cipher } });
