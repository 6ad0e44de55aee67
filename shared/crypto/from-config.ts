import { makeKmsClient } from '../clients/kms.ts';
import type { Config } from '../config.ts';
import { makeCipher, type Cipher } from './envelope.ts';
import type { KeyProvider } from './key-provider.ts';
import { makeKmsKeyProvider } from './kms-key-provider.ts';

/**
 * The key provider the configuration names: KMS in AWS, the local keyring under `npm start`. Imported only by
 * the functions that encrypt, so the others do not bundle the KMS client.
 */
export function keyProviderFromConfig(config: Config): KeyProvider {
  switch (config.encryption?.kind) {
    case 'kms':
      return makeKmsKeyProvider({ kms: makeKmsClient(), keyId: config.encryption.keyId });
    case 'local':
      return localKeyring(config.encryption.keyFile);
    default:
      throw new Error('Invalid configuration: KMS_KEY_ID (or LOCAL_KEYRING_FILE for the local stack) is required');
  }
}

/**
 * The local stack's keyring, loaded on its first use: a Lambda is always given a KMS key (the CDK app sets one), so
 * the keyring's code sits in a chunk that no cold start in AWS reads (lib/lambda-bundle.ts).
 */
function localKeyring(keyFile: string): KeyProvider {
  let loading: Promise<KeyProvider> | undefined;
  const keyring = () => (loading ??= import('./local-keyring.ts').then((module) => module.makeLocalKeyring({ keyFile })));
  return {
    generateDataKey: async (context) => (await keyring()).generateDataKey(context),
    decryptDataKey: async (encrypted, context) => (await keyring()).decryptDataKey(encrypted, context),
  };
}

/**
 * The envelope cipher of a function that seals or opens values, over the configured key provider. Decrypted data
 * keys stay cached for 5 minutes at most (up to `cachedDataKeys`): a warm container that opens the same value again
 * makes no KMS call.
 */
export function cipherFromConfig(config: Config, cachedDataKeys: number): Cipher {
  return makeCipher({ keys: keyProviderFromConfig(config), dataKeyCache: { maxEntries: cachedDataKeys, ttlMs: 5 * 60_000 } });
}
