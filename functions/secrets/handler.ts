import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { deletedSecretServiceOf, secretServiceOf, secretsStore } from '../../shared/secrets/secret-wiring.ts';
import { rotationServiceOf } from '../../shared/rotation/index.ts';
import { makeSecretRoutes } from './routes.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = secretsStore(db, pager);

// A warm container that reveals the same version again within 5 minutes makes no KMS call. The KMS client loads on
// the first reveal or write: a list, a search, a delete or a version history never needs it.
const cipher = cipherOnFirstUse(config, 1000);

const service = secretServiceOf({ config, store, cipher, clock });
const rotations = rotationServiceOf({ config, store, secrets: service, clock });

/** Lambda entry of the secrets route group. */
export const handler = makeRouteGroupHandler(makeSecretRoutes(service, deletedSecretServiceOf({ store, clock }), rotations), {
  authenticate,
  idempotency,
});
