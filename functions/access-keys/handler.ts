import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { makeAccessKeyService } from '../../shared/access/access-key-service.ts';
import { makeAccessKeyRoutes } from './routes.ts';
import { makeAccessKeyStore } from '../../shared/access/access-key-store.ts';
import { makeLoginStore } from '../../shared/access/login-store.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
// Revoking or changing a key reaches its live login tokens too (shared/access/login-store.ts).
const store = { ...makeAccessKeyStore(db, pager), ...makeLoginStore(db) };
// A replayed creation carries the token: its recorded answer is sealed with the envelope cipher, never stored plain.
// So is an AWS key pair's secret half, on its token item. Only those need it, so KMS loads on its first use.
const cipher = cipherOnFirstUse(config, 100);

/** Lambda entry of the access-keys route group. */
export const handler = makeRouteGroupHandler(makeAccessKeyRoutes(makeAccessKeyService({ store, clock, macs: idempotency.macs, cipher })), {
  authenticate,
  idempotency: { ...idempotency, cipher },
});
