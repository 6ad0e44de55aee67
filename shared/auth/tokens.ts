import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Prefixes of the bearer tokens this service issues itself. */
export const TOKEN_PREFIX = { apiKey: 'sk_live_', machine: 'st_' } as const;
export type IssuedTokenKind = keyof typeof TOKEN_PREFIX;

const WORKSPACE_ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const RANDOM = /^[A-Za-z0-9_-]{43}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CHECKSUM_LENGTH = 6;
/** Random part, checksum and workspace ULID; tokens issued before checksums (43 + 26) still authenticate. */
const LENGTH = { current: 43 + CHECKSUM_LENGTH + 26, legacy: 43 + 26 } as const;

/**
 * The CRC32 of the random part in six base62 characters, as GitHub's token format does: a mistyped or made-up
 * token is refused before it costs a table read, and secret scanners can tell a real token from look-alikes.
 * It is not a secret and proves nothing: only the stored hash does.
 */
function checksum(random: string): string {
  let value = crc32(random);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/**
 * Makes a token: prefix, 256 bits from the CSPRNG (first, so the shown `tokenPrefix` tells tokens apart), their
 * checksum, and the workspace's ULID (so authentication can fetch the token and its workspace in one round trip).
 * Only `hashToken(token)` is ever stored.
 */
export function issueToken(kind: IssuedTokenKind, workspaceId: string): string {
  const random = randomBytes(32).toString('base64url');
  return `${TOKEN_PREFIX[kind]}${random}${checksum(random)}${workspaceId.slice('ws_'.length)}`;
}

/** SHA-256 hex: tokens carry 256 random bits, so a fast hash is safe and lookups need no per-token salt. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The kind and workspace of a well-formed issued token whose checksum holds, or undefined for anything else: such
 * a token is refused without any read. A token of the length issued before checksums is taken on its form alone.
 */
export function parseIssuedToken(token: string): { kind: IssuedTokenKind; workspaceId: string } | undefined {
  for (const kind of Object.keys(TOKEN_PREFIX) as IssuedTokenKind[]) {
    const prefix = TOKEN_PREFIX[kind];
    if (!token.startsWith(prefix)) continue;
    const rest = token.slice(prefix.length);
    if (rest.length !== LENGTH.current && rest.length !== LENGTH.legacy) return undefined;
    const random = rest.slice(0, 43);
    const ulid = rest.slice(-26);
    if (!RANDOM.test(random) || !WORKSPACE_ULID.test(ulid)) return undefined;
    if (rest.length === LENGTH.current && rest.slice(43, 43 + CHECKSUM_LENGTH) !== checksum(random)) return undefined;
    return { kind, workspaceId: `ws_${ulid}` };
  }
  return undefined;
}

/** The first characters of a token, safe to show in listings so people can tell tokens apart. */
export function tokenPrefix(token: string): string {
  return token.slice(0, 10);
}
