import type { Config } from '../config.ts';
import { makeCipher, type Cipher } from './envelope.ts';
import { keyProviderFromConfig } from './key-provider-from-config.ts';

/** How long a decrypted data key may serve a warm container again without a KMS call. */
const DATA_KEY_TTL_MS = 5 * 60_000;

/**
 * The envelope cipher of a function that seals or opens values, over the configured key provider, made at cold
 * start (the API functions make theirs on the first value: cipherOnFirstUse). Decrypted data keys stay cached for 5
 * minutes at most (up to `cachedDataKeys`): a warm container that opens the same value again makes no KMS call.
 */
export function cipherFromConfig(config: Config, cachedDataKeys: number): Cipher {
  return makeCipher({ keys: keyProviderFromConfig(config), dataKeyCache: { maxEntries: cachedDataKeys, ttlMs: DATA_KEY_TTL_MS } });
}
