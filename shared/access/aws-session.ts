import type { ServiceMacs } from '../platform/crypto/mac-key.ts';

/**
 * Temporary AWS credentials (decisions.md, "Credentials"): a login with `"format": "aws"` answers its `st_` token as
 * the session token, with a key pair derived from it under the service's MAC key (the `awsSession` purpose of the
 * `service` root, which operators cannot unseal). Nothing more is stored: the AWS API derives the pair again from
 * the session token a request carries, so the token's revocation, PATCH, CIDRs and expiry reach it as they reach
 * the token itself. Without the session token the pair is worth nothing; without the pair the token signs nothing;
 * and its item is marked `format: "aws"`, so the token is no bearer token either (token-use.ts).
 */

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The access key id of temporary credentials: `ASSM` and 16 base32 characters (AWS's own begin `ASIA`). */
export const AWS_SESSION_KEY_ID = /^ASSM[A-Z2-7]{16}$/;

/** The key pair of the temporary credentials whose session token is `sessionToken`, derived under the service MAC key. */
export function awsSessionCredentials(macs: ServiceMacs, sessionToken: string): { accessKeyId: string; secretAccessKey: string } {
  const id = macs.mac('awsSession', `access-key-id\0${sessionToken}`);
  let accessKeyId = 'ASSM';
  for (let i = 0; i < 16; i++) accessKeyId += BASE32[id[i]! % 32];
  const secretAccessKey = macs.mac('awsSession', `secret-access-key\0${sessionToken}`).toString('base64').slice(0, 40);
  return { accessKeyId, secretAccessKey };
}
