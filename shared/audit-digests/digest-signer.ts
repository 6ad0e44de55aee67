import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { GetPublicKeyCommand, type KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { makeKmsClient } from '../platform/clients/kms.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import { type AuditDigest, signedBytes, type UnsignedDigest } from './digest-record.ts';

/**
 * Who signs digests: a KMS asymmetric key in AWS (its private half never leaves KMS), a P-256 key of the local
 * keyring under the local stack. Both make the same signature, ECDSA P-256 over SHA-256, DER-encoded, so one
 * verifier (digest-verify.ts) checks either with the public key alone.
 */
export interface DigestSigner {
  /** The DER-encoded ECDSA P-256 / SHA-256 signature of `bytes`. */
  sign(bytes: Uint8Array): Promise<Buffer>;
  /** The public key that verifies the signatures, as SPKI PEM (what `GET /api/v1/audit/public-key` answers). */
  publicKeyPem(): Promise<string>;
}

/** The digest with its signature (base64 of the DER bytes) over `signedBytes`. */
export async function signDigest(signer: DigestSigner, digest: UnsignedDigest): Promise<AuditDigest> {
  const signature = await signer.sign(signedBytes(digest));
  return { ...digest, signature: signature.toString('base64') };
}

/** Refuses a key that is not on P-256: the verifier and the contract know only ECDSA P-256 / SHA-256. */
function assertP256(key: KeyObject, what: string): void {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error(`${what} is not an ECDSA P-256 key`);
  }
}

/**
 * A signer over a P-256 private key in PEM (the local keyring's digest key), through node:crypto. The key is parsed
 * once here, so a wrong key fails at start, not at the first digest; the error never quotes the key.
 */
export function makeLocalDigestSigner(privateKeyPem: string): DigestSigner {
  const privateKey = createPrivateKey({ key: privateKeyPem, format: 'pem' });
  assertP256(privateKey, 'The local digest signing key');
  const pem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return {
    sign: async (bytes) => sign('sha256', bytes, { key: privateKey, dsaEncoding: 'der' }),
    publicKeyPem: async () => pem,
  };
}

/** The PEM of a DER SubjectPublicKeyInfo, as KMS GetPublicKey answers one; refused unless on P-256. */
export function spkiDerToPem(der: Uint8Array): string {
  const key = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
  assertP256(key, 'The KMS digest key');
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

/**
 * A signer over a KMS asymmetric key (KeySpec ECC_NIST_P256, KeyUsage SIGN_VERIFY). It sends KMS the SHA-256 of the
 * bytes with MessageType DIGEST rather than the bytes themselves: a RAW message is limited to 4096 bytes, and ECDSA
 * over SHA-256 signs exactly this hash either way, so the signature verifies over the original bytes. The public key
 * is asked once per signer (it never changes for a key id) and a failed ask is asked again next time.
 */
export function makeKmsDigestSigner(options: { kms: KMSClient; keyId: string }): DigestSigner {
  const { kms, keyId } = options;
  const publicKey = loadOnce(async () => {
    const out = await kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
    if (!out.PublicKey) throw new Error('KMS GetPublicKey returned no public key');
    if (out.KeySpec !== undefined && out.KeySpec !== 'ECC_NIST_P256')
      throw new Error(`The KMS digest key is ${out.KeySpec}, not ECC_NIST_P256`);
    return spkiDerToPem(out.PublicKey);
  });
  return {
    async sign(bytes) {
      const digest = createHash('sha256').update(bytes).digest();
      const out = await kms.send(
        new SignCommand({ KeyId: keyId, Message: digest, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' }),
      );
      if (!out.Signature) throw new Error('KMS Sign returned no signature');
      return Buffer.from(out.Signature);
    },
    publicKeyPem: publicKey,
  };
}

/** The container's KMS client for digests, made on first use and then kept (never one per call). */
let containerKms: KMSClient | undefined;
const kmsSigners = new Map<string, DigestSigner>();

/**
 * The container's KMS signer for `keyId`: one per key id over the container's one KMS client, so the public key is
 * asked of KMS once per container, not once per digest or per `GET /api/v1/audit/public-key`.
 */
export function kmsDigestSigner(keyId: string): DigestSigner {
  let signer = kmsSigners.get(keyId);
  if (!signer) {
    containerKms ??= makeKmsClient();
    signer = makeKmsDigestSigner({ kms: containerKms, keyId });
    kmsSigners.set(keyId, signer);
  }
  return signer;
}
