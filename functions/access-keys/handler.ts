import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { accessKeyServiceOf } from '../../shared/access/access-key-wiring.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { makeAccessKeyRoutes } from './routes.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
// A replayed creation carries the token: its recorded answer is sealed with the envelope cipher, never stored plain.
// So is an AWS key pair's secret half, on its token item. Only those need it, so KMS loads on its first use.
const cipher = cipherOnFirstUse(config, 100);
const service = accessKeyServiceOf({ db, pager, clock, macs: idempotency.macs, cipher });

/** Lambda entry of the access-keys route group. */
export const handler = makeRouteGroupHandler(makeAccessKeyRoutes(service), { authenticate, idempotency: { ...idempotency, cipher } });
