import { configuredEncryption, type Config } from '../config.ts';
import { onFirstUse } from '../on-first-use.ts';
import type { Cipher } from './envelope.ts';

/**
 * The envelope cipher of an API function, where only some routes seal or open a value (a reveal, a write, a
 * signing secret, an idempotent answer with a one-time secret). The cipher, with the KMS client and the SDK code
 * behind it (shared/platform/crypto/from-config.ts), is made by the first of them, so a cold start whose request never needs
 * a data key (a list, a delete, a revoke) neither reads that code nor builds the client. The first value pays for
 * both, once per container. Functions whose every invocation opens a value (the delivery worker) use
 * cipherFromConfig, which builds the client at cold start.
 */
export function cipherOnFirstUse(config: Config, cachedDataKeys: number): Cipher {
  configuredEncryption(config);
  return onFirstUse(['encrypt', 'decrypt'], async () => (await import('./from-config.ts')).cipherFromConfig(config, cachedDataKeys));
}
