import { randomBytes } from 'node:crypto';

/**
 * The key pairs of access keys with auth `aws_sigv4` (decisions.md, "The AWS Secrets Manager API"), in the form AWS
 * gives its own: an access key id of 20 upper-case letters and digits, and a secret access key of 40 characters.
 */

/** Base32's alphabet (RFC 4648): upper-case letters and the digits 2 to 7, as AWS's key ids use. */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The prefix of a long-lived key id (AWS's own is AKIA): `AKSM`, so a leaked one names this service. */
export const AWS_KEY_ID_PREFIX = 'AKSM';

/** A key id's form: the prefix and 16 base32 characters (80 random bits). */
export const AWS_KEY_ID = /^AKSM[A-Z2-7]{16}$/;

function base32(bytes: Buffer, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE32[bytes[i]! & 31];
  return out;
}

/** A fresh key pair: 80 random bits of id, 240 of secret. */
export function newAwsKeyPair(): { accessKeyId: string; secretAccessKey: string } {
  return {
    accessKeyId: `${AWS_KEY_ID_PREFIX}${base32(randomBytes(16), 16)}`,
    secretAccessKey: randomBytes(30).toString('base64'),
  };
}
