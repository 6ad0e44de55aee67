import { makeKmsClient } from '../clients/kms.ts';
import type { Config } from '../config.ts';
import { makeCipher, type Cipher } from './envelope.ts';
import type { KeyProvider } from './key-provider.ts';
import { makeKmsKeyProvider } from './kms-key-provider.ts';
import { makeLocalKeyring } from './local-keyring.ts';

/**
 * The key provider the configuration names: KMS in AWS, the local keyring under `npm start`. Imported only by
 * the functions that encrypt, so the others do not bundle the KMS client.
 */
export function keyProviderFromConfig(config: Config): KeyProvider {
  switch (config.encryption?.kind) {
    case 'kms':
      return makeKmsKeyProvider({ kms: makeKmsClient(), keyId: config.encryption.keyId });
    case 'local':
      return makeLocalKeyring({ keyFile: config.encryption.keyFile });
    default:
      throw new Error('Invalid configuration: KMS_KEY_ID (or LOCAL_KEYRING_FILE for the local stack) is required');
  }
}

/**
 * The envelope cipher of a function that seals or opens values, over the configured key provider. Decrypted data
 * keys stay cached for 5 minutes at most (up to `cachedDataKeys`): a warm container that opens the same value again
 * makes no KMS call.
 */
export function cipherFromConfig(config: Config, cachedDataKeys: number): Cipher {
  return makeCipher({ keys: keyProviderFromConfig(config), dataKeyCache: { maxEntries: cachedDataKeys, ttlMs: 5 * 60_000 } });
}
