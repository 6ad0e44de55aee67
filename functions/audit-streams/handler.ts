import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { auditStreamServiceOf } from '../../shared/audit-streams/stream-wiring.ts';
import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { makeAuditStreamRoutes } from './routes.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();

// Only a create or a PATCH with a credential seals (and a recorded create answer under an Idempotency-Key, which
// carries an https stream's signing secret): the KMS client loads on the first of them.
const cipher = cipherOnFirstUse(config, 100);

/** Lambda entry of the audit streams route group. */
export const handler = makeRouteGroupHandler(makeAuditStreamRoutes(auditStreamServiceOf({ config, db, pager, cipher, clock })), {
  authenticate,
  // A replayed create carries the signing secret: its recorded answer is sealed like the secret itself.
  idempotency: { ...idempotency, cipher },
});
