import { createHash, randomBytes } from 'node:crypto';
import type { ServiceMacs } from '../platform/crypto/mac-key.ts';

/** Prefixes of the bearer tokens this service issues itself. */
export const TOKEN_PREFIX = { apiKey: 'sk_live_', machine: 'st_' } as const;
export type IssuedTokenKind = keyof typeof TOKEN_PREFIX;

const RANDOM_LENGTH = 43;
/** 48 bits of the keyed checksum, in 8 base64url characters. */
const CHECKSUM_BYTES = 6;
const CHECKSUM_LENGTH = 8;
/** Random part, keyed checksum and workspace ULID, all base64url or ULID characters. */
const FORM = new RegExp(`^([A-Za-z0-9_-]{${RANDOM_LENGTH}})([A-Za-z0-9_-]{${CHECKSUM_LENGTH}})([0-9A-HJKMNP-TV-Z]{26})$`);

/**
 * The keyed checksum of a token: HMAC-SHA256 under the service MAC key's `tokenChecksum` purpose key, over the
 * prefix, the random part and the workspace ULID, cut to 48 bits. Only this deployment can make one, so a token it
 * did not issue (made up, mistyped, from another deployment, or of an older unkeyed form) is refused before it
 * costs a table read; nobody without the key can mint a token that passes it. It proves nothing about the token's
 * validity: the stored hash does that.
 */
function checksum(macs: ServiceMacs, body: string): Buffer {
  return macs.mac('tokenChecksum', body).subarray(0, CHECKSUM_BYTES);
}

/**
 * Makes a token: prefix, 256 bits from the CSPRNG (first, so the shown `tokenPrefix` tells tokens apart), the keyed
 * checksum, and the workspace's ULID (so authentication can fetch the token and its workspace in one round trip).
 * Only `hashToken(token)` is ever stored.
 */
export function issueToken(macs: ServiceMacs, kind: IssuedTokenKind, workspaceId: string): string {
  const random = randomBytes(32).toString('base64url');
  const ulid = workspaceId.slice('ws_'.length);
  return `${TOKEN_PREFIX[kind]}${random}${checksum(macs, `${TOKEN_PREFIX[kind]}${random}${ulid}`).toString('base64url')}${ulid}`;
}

/** SHA-256 hex: tokens carry 256 random bits, so a fast hash is safe and lookups need no per-token salt. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A token of the issued form (prefix, lengths, alphabets), its checksum not yet checked. */
export interface IssuedTokenShape {
  kind: IssuedTokenKind;
  workspaceId: string;
  /** What the checksum covers, and the checksum itself. */
  body: string;
  checksum: Buffer;
}

/**
 * The parts of a token of the current issued form, or undefined for anything else (the unkeyed CRC32 form and the
 * form without a checksum included): such a token is refused without loading the MAC key or reading the table.
 */
export function issuedTokenShape(token: string): IssuedTokenShape | undefined {
  for (const kind of Object.keys(TOKEN_PREFIX) as IssuedTokenKind[]) {
    const prefix = TOKEN_PREFIX[kind];
    if (!token.startsWith(prefix)) continue;
    const parts = FORM.exec(token.slice(prefix.length));
    if (!parts) return undefined;
    const [, random, sum, ulid] = parts as unknown as [string, string, string, string];
    return { kind, workspaceId: `ws_${ulid}`, body: `${prefix}${random}${ulid}`, checksum: Buffer.from(sum, 'base64url') };
  }
  return undefined;
}

/** Whether the shape's keyed checksum holds: a check in constant time, with no I/O. */
export function checksumHolds(macs: ServiceMacs, shape: IssuedTokenShape): boolean {
  return shape.checksum.length === CHECKSUM_BYTES && macs.verify('tokenChecksum', shape.body, shape.checksum);
}

/** The first characters of a token, safe to show in listings so people can tell tokens apart. */
export function tokenPrefix(token: string): string {
  return token.slice(0, 10);
}
