import type { Config } from '../config.ts';
import type { Cipher } from '../crypto/envelope.ts';
import { cipherFromConfig } from '../crypto/from-config.ts';

/**
 * The envelope cipher for endpoints' signing secrets. Its data-key cache spares a warm worker the KMS call for an
 * endpoint whose secret it opened in the last five minutes.
 */
export function signingCipherFromConfig(config: Config): Cipher {
  return cipherFromConfig(config, 200);
}
