import type { Clock } from '../platform/clock.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import type { ServiceMacs } from '../platform/crypto/mac-key.ts';
import { composeStores } from '../platform/store/compose.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeAccessKeyService } from './access-key-service.ts';
import { makeAccessKeyStore } from './access-key-store.ts';
import { makeLoginStore } from './login-store.ts';

export type { AccessKeyService } from './access-key-service.ts';
/** What the access-keys routes answer (and the API description shows), and accept of permissions, CIDRs and logins. */
export { accessKeyAnswer, accessKeyCreated } from './access-key-answers.ts';
export { allowedCidrsSchema, permissionsSchema } from './permission-schemas.ts';
export { accessKeyAuthSchema, tokenTtlSchema } from './login-schemas.ts';

/**
 * The access-keys route group's service, as its function builds it once per container: over the access keys' store
 * and the login store, since revoking or changing a key reaches its live login tokens too (login-store.ts).
 */
export function accessKeyServiceOf(deps: {
  db: Db;
  pager: Pager;
  clock: Clock;
  macs: () => Promise<ServiceMacs>;
  cipher: Pick<Cipher, 'encrypt'>;
}) {
  const store = composeStores(makeAccessKeyStore(deps.db, deps.pager), makeLoginStore(deps.db));
  return makeAccessKeyService({ store, clock: deps.clock, macs: deps.macs, cipher: deps.cipher });
}
