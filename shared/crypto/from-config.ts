import { makeKmsClient } from '../clients/kms.ts';
import { configuredEncryption, type Config } from '../config.ts';
import { makeCipher, type Cipher } from './envelope.ts';
import type { KeyProvider } from './key-provider.ts';
import { makeKmsKeyProvider } from './kms-key-provider.ts';
import { makeLocalKeyring } from './local-keyring.ts';

/** How long a decrypted data key may serve a warm container again without a KMS call. */
const DATA_KEY_TTL_MS = 5 * 60_000;

const providers = new WeakMap<Config, KeyProvider>();

/**
 * The key provider the configuration names: KMS in AWS, the local keyring under `npm start`; one per container
 * and configuration, so the cipher and the service MAC key share one KMS client. Loaded on first use (a chunk of
 * its own), so a cold start does not read the KMS client.
 */
export function keyProviderFromConfig(config: Config): KeyProvider {
  let provider = providers.get(config);
  if (provider) return provider;
  const encryption = configuredEncryption(config);
  provider = encryption.kind === 'kms' ? makeKmsKeyProvider({ kms: makeKmsClient(), keyId: encryption.keyId }) : makeLocalKeyring({ keyFile: encryption.keyFile });
  providers.set(config, provider);
  return provider;
}

/**
 * The envelope cipher of a function that seals or opens values, over the configured key provider, made at cold
 * start (the API functions make theirs on the first value: cipherOnFirstUse). Decrypted data keys stay cached for 5
 * minutes at most (up to `cachedDataKeys`): a warm container that opens the same value again makes no KMS call.
 */
export function cipherFromConfig(config: Config, cachedDataKeys: number): Cipher {
  return makeCipher({ keys: keyProviderFromConfig(config), dataKeyCache: { maxEntries: cachedDataKeys, ttlMs: DATA_KEY_TTL_MS } });
}
