import { loadOrCreateDigestSigningKey } from '../platform/crypto/local-keyring.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import { kmsDigestSigner, makeLocalDigestSigner, type DigestSigner } from './digest-signer.ts';

/**
 * The digest signer a function's settings name: the KMS key `AUDIT_SIGNING_KEY_ID` on AWS, the local keyring's key
 * file `AUDIT_LOCAL_SIGNING_KEY_FILE` under the local stack. Apart from the digester's wiring (digest-wiring.ts, which
 * also makes the bucket), so the audit route group, which only answers the public key, loads no S3 code.
 */

export type Settings = Partial<Record<string, string>>;

/** One of two settings, exactly: the AWS one or its local stand-in's. */
export function oneOf(env: Settings, aws: string, local: string): { aws: string } | { local: string } {
  const [a, l] = [env[aws]?.trim(), env[local]?.trim()];
  if (a && l) throw new Error(`Invalid configuration: set ${aws} or ${local}, not both`);
  if (a) return { aws: a };
  if (l) return { local: l };
  throw new Error(`Invalid configuration: ${aws} (or ${local} for the local stack) is required`);
}

/** A signer over the local keyring's digest key, read (or made) on the first signature, then kept. */
export function keyringDigestSigner(keyFile: string): DigestSigner {
  const signer = loadOnce(async () => makeLocalDigestSigner(await loadOrCreateDigestSigningKey(keyFile)));
  return {
    sign: async (bytes) => (await signer()).sign(bytes),
    publicKeyPem: async () => (await signer()).publicKeyPem(),
  };
}

/** The digest signer the settings name: the KMS key's, or the local keyring's. */
export function digestSignerOf(env: Settings): DigestSigner {
  const key = oneOf(env, 'AUDIT_SIGNING_KEY_ID', 'AUDIT_LOCAL_SIGNING_KEY_FILE');
  return 'aws' in key ? kmsDigestSigner(key.aws) : keyringDigestSigner(key.local);
}
