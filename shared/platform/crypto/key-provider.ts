/**
 * Names what a data key may be used for. For secrets: `workspaceId`, `secretId` and `version`, all as strings.
 * It is bound into every wrap (KMS encryption context, local keyring AAD) and every value (AES-GCM AAD), so material
 * copied to another secret or version does not decrypt. It is not secret: KMS writes it to CloudTrail in the clear.
 */
export type EncryptionContext = Record<string, string>;

/** A fresh data key: `plaintext` is for one use and must be zeroed by the caller; `encrypted` is stored. */
export interface DataKey {
  plaintext: Buffer;
  encrypted: Buffer;
}

/** Makes and unwraps 256-bit data keys under a master key the service never holds in the clear (KMS in AWS). */
export interface KeyProvider {
  /** A new random 32-byte data key, wrapped under the master key for `context`. */
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  /** The plaintext of a wrapped data key; rejects unless `context` is the one it was wrapped for. */
  decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer>;
}
