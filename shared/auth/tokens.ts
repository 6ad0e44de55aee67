import { createHash, randomBytes } from 'node:crypto';

/** Prefixes of the bearer tokens this service issues itself. */
export const TOKEN_PREFIX = { apiKey: 'sk_live_', machine: 'st_' } as const;
export type IssuedTokenKind = keyof typeof TOKEN_PREFIX;

const WORKSPACE_ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const RANDOM = /^[A-Za-z0-9_-]{43}$/;

/**
 * Makes a token: prefix, 256 bits from the CSPRNG (first, so the shown `tokenPrefix` tells tokens apart) and the
 * workspace's ULID (so authentication can fetch the token and its workspace in one round trip). Only
 * `hashToken(token)` is ever stored.
 */
export function issueToken(kind: IssuedTokenKind, workspaceId: string): string {
  return `${TOKEN_PREFIX[kind]}${randomBytes(32).toString('base64url')}${workspaceId.slice('ws_'.length)}`;
}

/** SHA-256 hex: tokens carry 256 random bits, so a fast hash is safe and lookups need no per-token salt. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The kind and workspace of a well-formed issued token, or undefined for anything else. */
export function parseIssuedToken(token: string): { kind: IssuedTokenKind; workspaceId: string } | undefined {
  for (const kind of Object.keys(TOKEN_PREFIX) as IssuedTokenKind[]) {
    const prefix = TOKEN_PREFIX[kind];
    if (!token.startsWith(prefix)) continue;
    const random = token.slice(prefix.length, prefix.length + 43);
    const ulid = token.slice(prefix.length + 43);
    if (WORKSPACE_ULID.test(ulid) && RANDOM.test(random)) return { kind, workspaceId: `ws_${ulid}` };
  }
  return undefined;
}

/** The first characters of a token, safe to show in listings so people can tell tokens apart. */
export function tokenPrefix(token: string): string {
  return token.slice(0, 10);
}
