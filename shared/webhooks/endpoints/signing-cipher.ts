import type { Config } from '../../platform/config.ts';
import type { Cipher } from '../../platform/crypto/envelope.ts';
import { cipherOnFirstUse } from '../../platform/crypto/cipher-on-first-use.ts';
import { SIGNING_SECRET_DATA_KEYS } from './signature.ts';

/**
 * The webhooks API's envelope cipher for signing secrets. Only registering an endpoint (and recording or replaying
 * its answer under an Idempotency-Key) seals or opens one, so the KMS client loads on the first of them (cipherOnFirstUse).
 */
export function signingCipherOnFirstUse(config: Config): Cipher {
  return cipherOnFirstUse(config, SIGNING_SECRET_DATA_KEYS);
}
