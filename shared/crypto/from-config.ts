import { makeKmsClient } from '../clients/kms.ts';
import type { Config } from '../config.ts';
import { makeCipher, type Cipher } from './envelope.ts';
import type { KeyProvider } from './key-provider.ts';
import { makeKmsKeyProvider } from './kms-key-provider.ts';
import { onFirstUse } from '../on-first-use.ts';
import { configuredEncryption, DATA_KEY_TTL_MS } from './on-first-use.ts';

/**
 * The key provider the configuration names: KMS in AWS, the local keyring under `npm start`. Imported only by
 * the functions that encrypt, so the others do not bundle the KMS client. The local keyring is loaded on its first
 * use: a Lambda is always given a KMS key (the CDK app sets one), so the keyring's code sits in a chunk that no cold
 * start in AWS reads (lib/lambda-bundle.ts).
 */
export function keyProviderFromConfig(config: Config): KeyProvider {
  const encryption = configuredEncryption(config);
  if (encryption.kind === 'kms') return makeKmsKeyProvider({ kms: makeKmsClient(), keyId: encryption.keyId });
  return onFirstUse(['generateDataKey', 'decryptDataKey'], async () => (await import('./local-keyring.ts')).makeLocalKeyring({ keyFile: encryption.keyFile }));
}

/**
 * The envelope cipher of a function that seals or opens values, over the configured key provider, made at cold
 * start (see cipherOnFirstUse for the API functions). Decrypted data keys stay cached for 5 minutes at most (up to
 * `cachedDataKeys`): a warm container that opens the same value again makes no KMS call.
 */
export function cipherFromConfig(config: Config, cachedDataKeys: number): Cipher {
  return makeCipher({ keys: keyProviderFromConfig(config), dataKeyCache: { maxEntries: cachedDataKeys, ttlMs: DATA_KEY_TTL_MS } });
}
