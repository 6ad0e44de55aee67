import type { Config } from '../config.ts';
import { onFirstUse } from '../on-first-use.ts';
import type { Cipher } from './envelope.ts';

/** How long a decrypted data key may serve a warm container again without a KMS call. */
export const DATA_KEY_TTL_MS = 5 * 60_000;

/** The encryption the configuration names; without one, the function fails at cold start, not on its first value. */
export function configuredEncryption(config: Config): NonNullable<Config['encryption']> {
  if (!config.encryption) throw new Error('Invalid configuration: KMS_KEY_ID (or LOCAL_KEYRING_FILE for the local stack) is required');
  return config.encryption;
}

/**
 * The envelope cipher of an API function, where only some routes seal or open a value (a reveal, a write, a
 * signing secret, an idempotent answer with a one-time secret). The cipher, with the KMS client and the SDK code
 * behind it (shared/crypto/from-config.ts), is made by the first of them, so a cold start whose request never needs
 * a data key (a list, a delete, a revoke) neither reads that code nor builds the client. The first value pays for
 * both, once per container. Functions whose every invocation opens a value (the delivery worker) use
 * cipherFromConfig, which builds the client at cold start.
 */
export function cipherOnFirstUse(config: Config, cachedDataKeys: number): Cipher {
  configuredEncryption(config);
  return onFirstUse(['encrypt', 'decrypt'], async () => (await import('./from-config.ts')).cipherFromConfig(config, cachedDataKeys));
}
