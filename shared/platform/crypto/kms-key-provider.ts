import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { ServiceUnavailableError } from '../errors.ts';
import type { DataKey, EncryptionContext, KeyProvider } from './key-provider.ts';

/** KMS failures a caller can do nothing about but wait: they become SERVICE_UNAVAILABLE (503, Retry-After). */
const RETRYABLE = new Set([
  'ThrottlingException',
  'KMSInternalException',
  'KeyUnavailableException',
  'DependencyTimeoutException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** KMS refused to unwrap: wrong context, wrong key, tampered blob or missing grant. A 500, never a client's fault. */
const DECRYPT_REJECTED = new Set(['InvalidCiphertextException', 'IncorrectKeyException', 'AccessDeniedException']);

const DATA_KEY_BYTES = 32;

/**
 * The production KeyProvider: data keys come from and go back to one customer-managed KMS key. The client is
 * injected (one per container, see shared/platform/clients/kms.ts) so tests can mock it. Without `keyId` (the admin CLI
 * before it knows one) Decrypt lets KMS find the key in the ciphertext, which a symmetric one names.
 */
export function makeKmsKeyProvider(options: { kms: KMSClient; keyId: string | undefined }): KeyProvider {
  const { kms, keyId } = options;
  return {
    async generateDataKey(context: EncryptionContext): Promise<DataKey> {
      const out = await call('GenerateDataKey', () =>
        kms.send(new GenerateDataKeyCommand({ KeyId: requiredKeyId(keyId), KeySpec: 'AES_256', EncryptionContext: context })),
      );
      if (out.Plaintext?.byteLength !== DATA_KEY_BYTES || !out.CiphertextBlob) {
        out.Plaintext?.fill(0);
        throw new Error('KMS GenerateDataKey returned an unexpected response');
      }
      return { plaintext: view(out.Plaintext), encrypted: Buffer.from(out.CiphertextBlob) };
    },

    async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
      const out = await call('Decrypt', () =>
        kms.send(new DecryptCommand({ ...(keyId ? { KeyId: keyId } : {}), CiphertextBlob: encrypted, EncryptionContext: context })),
      );
      if (out.Plaintext?.byteLength !== DATA_KEY_BYTES) {
        out.Plaintext?.fill(0);
        throw new Error('KMS Decrypt returned an unexpected response');
      }
      return view(out.Plaintext);
    },
  };
}

/** The key new data keys are made under; the admin CLI names it with --kms-key. */
function requiredKeyId(keyId: string | undefined): string {
  if (!keyId) throw new Error('A KMS key id is needed to make a data key');
  return keyId;
}

/**
 * A Buffer over the SDK's own bytes rather than a copy, so that the caller's `fill(0)` wipes the only copy of the
 * plaintext data key instead of leaving the SDK's array behind in the heap.
 */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Runs one KMS call and translates its failure; see `translateKmsError`. */
async function call<T>(operation: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    return translateKmsError(operation, error);
  }
}

/**
 * Maps a KMS failure to what the service may show. Retryable ones become ServiceUnavailableError; everything else
 * becomes a plain Error (a 500) whose message is fixed here and names only the operation and the exception type.
 * KMS's own message (which can quote key ARNs and policy details) and the original error are deliberately dropped,
 * not kept as `cause`, so no log line or serialiser can reach them.
 */
function translateKmsError(operation: string, error: unknown): never {
  const name = (error as { name?: unknown } | null)?.name;
  const code = (error as { code?: unknown } | null)?.code;
  if ((typeof name === 'string' && RETRYABLE.has(name)) || (typeof code === 'string' && NETWORK_CODES.has(code))) {
    throw new ServiceUnavailableError();
  }
  if (operation === 'Decrypt' && typeof name === 'string' && DECRYPT_REJECTED.has(name)) {
    throw new Error(`KMS refused to decrypt a data key (${name})`);
  }
  const safeName = typeof name === 'string' && /^[A-Za-z]{1,64}$/.test(name) ? name : 'unknown error';
  throw new Error(`KMS ${operation} failed (${safeName})`);
}
