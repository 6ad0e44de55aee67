import type { Config } from '../config.ts';
import type { Cipher } from '../crypto/envelope.ts';
import { cipherOnFirstUse } from '../crypto/on-first-use.ts';

/**
 * Data keys of endpoints' signing secrets a container keeps open for five minutes: a warm worker makes no KMS call
 * for an endpoint whose secret it opened in that time (functions/delivery-worker/handler.ts).
 */
export const SIGNING_SECRET_DATA_KEYS = 200;

/**
 * The webhooks API's envelope cipher for signing secrets. Only registering an endpoint (and recording or replaying
 * its answer under an Idempotency-Key) seals or opens one, so the KMS client loads on the first of them (cipherOnFirstUse).
 */
export function signingCipherOnFirstUse(config: Config): Cipher {
  return cipherOnFirstUse(config, SIGNING_SECRET_DATA_KEYS);
}
