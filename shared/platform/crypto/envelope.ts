import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { canonicalContext } from './context.ts';
import { makeDataKeyCache, type DataKeyCacheOptions } from './data-key-cache.ts';
import type { EncryptionContext, KeyProvider } from './key-provider.ts';

/**
 * One encrypted value as it is stored, every field base64: AES-256-GCM `ciphertext` of the UTF-8 value under a data
 * key of its own, the 96-bit `iv`, the 128-bit GCM `tag`, and the `encryptedDataKey` (the KeyProvider's wrapped
 * form: a KMS ciphertext blob, or the local keyring's format). Kept as separate fields rather than one packed
 * string so the stored item is self-describing; all four are needed, together with the same context, to decrypt.
 */
export interface SealedValue {
  ciphertext: string;
  iv: string;
  tag: string;
  encryptedDataKey: string;
}

/** Encrypts and decrypts secret values; the context must be identical on both sides. */
export interface Cipher {
  encrypt(plaintext: string, context: EncryptionContext): Promise<SealedValue>;
  decrypt(sealed: SealedValue, context: EncryptionContext): Promise<string>;
}

export interface CipherOptions {
  keys: KeyProvider;
  /**
   * Caches decrypted data keys for `decrypt`, so a warm container revealing the same version again makes no KMS
   * call (latency, KMS request quota, cost). Off when absent. The trade-off: plaintext data keys then stay in the
   * warm container's memory for up to `ttlMs` after their last unwrap instead of for one call, and a KMS grant
   * or key policy that is revoked stops those values only when their entries expire. Each data key opens exactly
   * one version of one secret, entries are keyed by the wrapped key AND the context, and evicted keys are zeroed.
   */
  dataKeyCache?: DataKeyCacheOptions;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const DECRYPT_FAILED = 'The secret value could not be decrypted';

/** The envelope cipher: a fresh data key per value, AES-256-GCM with the context as AAD. */
export function makeCipher(options: CipherOptions): Cipher {
  const { keys } = options;
  const cache = options.dataKeyCache ? makeDataKeyCache(options.dataKeyCache) : undefined;
  return {
    async encrypt(plaintext: string, context: EncryptionContext): Promise<SealedValue> {
      const aad = canonicalContext(context);
      const dataKey = await keys.generateDataKey(context);
      try {
        return { ...seal(dataKey.plaintext, plaintext, aad), encryptedDataKey: dataKey.encrypted.toString('base64') };
      } finally {
        dataKey.plaintext.fill(0);
      }
    },

    async decrypt(sealed: SealedValue, context: EncryptionContext): Promise<string> {
      const aad = canonicalContext(context);
      const encryptedDataKey = Buffer.from(sealed.encryptedDataKey, 'base64');
      const cacheKey = `${sealed.encryptedDataKey}|${aad.toString('utf8')}`;
      // Looked up and used with no await in between, so no other call can evict (and zero) the key meanwhile.
      const cached = cache?.get(cacheKey);
      if (cached) return open(cached, sealed, aad);
      const dataKey = await keys.decryptDataKey(encryptedDataKey, context);
      let value: string;
      try {
        value = open(dataKey, sealed, aad);
      } catch (error) {
        dataKey.fill(0);
        throw error;
      }
      if (cache) cache.set(cacheKey, dataKey);
      else dataKey.fill(0);
      return value;
    },
  };
}

/** AES-256-GCM encryption of one value under its own data key, with a random 96-bit IV. */
function seal(dataKey: Buffer, plaintext: string, aad: Buffer): Omit<SealedValue, 'encryptedDataKey'> {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

/** AES-256-GCM decryption of one sealed value; any mismatch (context, iv, tag, ciphertext) is one fixed error. */
function open(dataKey: Buffer, sealed: SealedValue, aad: Buffer): string {
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  // Checked here because GCM would accept a shorter tag and so a weaker forgery bound.
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error(DECRYPT_FAILED);
  let plaintext: Buffer | undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    plaintext = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
    return plaintext.toString('utf8');
  } catch {
    throw new Error(DECRYPT_FAILED);
  } finally {
    plaintext?.fill(0);
  }
}
