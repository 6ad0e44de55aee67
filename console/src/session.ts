import type { ConsoleConfig } from './config.ts';

/**
 * The signed-in person's token: in memory and in `sessionStorage` only (decisions.md, "Console"), never in
 * `localStorage`, a cookie or a URL. Sign-out clears both.
 *
 * A sign-in with the identity provider may come with a refresh token (oidc.ts): it is kept in memory alone, never in
 * any storage, so a script that reads storage finds at most a short-lived access token, and a reload of the page
 * ends the refreshing (the access token then lasts until it expires).
 */
const TOKEN_KEY = 'secrets-console.token';

let current: string | null = null;

/** What renews the access token: the provider's refresh token and when the access token it has now expires. */
export interface RefreshGrant {
  refreshToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

let grant: RefreshGrant | null = null;
/** Counts sign-ins and sign-outs (not renewals): an answer to a request of an earlier session cannot end this one. */
let epoch = 0;

export function storedToken(): string | null {
  current ??= sessionStorage.getItem(TOKEN_KEY);
  return current;
}

/** A new session: its token, and the refresh grant that came with it (when the provider gave one). */
export function signIn(token: string, refresh: RefreshGrant | null = null): void {
  epoch += 1;
  current = token;
  grant = refresh;
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** The same session with a renewed access token (and the refresh token that renews it next). */
export function renew(token: string, refresh: RefreshGrant | null): void {
  current = token;
  grant = refresh;
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function refreshGrant(): RefreshGrant | null {
  return grant;
}

export function sessionEpoch(): number {
  return epoch;
}

export function signOut(): void {
  epoch += 1;
  current = null;
  grant = null;
  sessionStorage.removeItem(TOKEN_KEY);
  // The sign-in with the identity provider keeps its own state under this prefix.
  for (const key of Object.keys(sessionStorage)) if (key.startsWith('secrets-console.')) sessionStorage.removeItem(key);
}

/** What the console offers a credential: the controls it shows. The API still decides every request. */
export interface Offers {
  reveal: boolean;
  write: boolean;
  delete: boolean;
  admin: boolean;
}

/**
 * The server's role table (shared/access/permissions.ts), written into the bundle by its build (bin/console-build.ts,
 * `credentialTable`): the roles weakest first, and the offers of each role, of an API key (`api_key`) and of a machine
 * token with the default rules (`machine`). The console keeps no copy of it.
 */
declare const __CREDENTIAL_TABLE__: { roles: string[]; offers: Record<string, Offers> };
const TABLE = __CREDENTIAL_TABLE__;
const NOTHING: Offers = { reveal: false, write: false, delete: false, admin: false };

/** Who a token is, as the console shows it, and what it offers them. */
export interface Credential {
  /** A person's role, `API key` or `machine`. */
  label: string;
  offers: Offers;
}

/**
 * What the console offers a token, read from the token itself: an API key and a machine token by their prefix (a
 * machine token's own rules may allow less: the API's FORBIDDEN then says so); a person's JWT by the role its claim
 * names (the strongest recognised, else the stack's default), as the server reads it. Only for what the console
 * offers: the API decides every request, and a FORBIDDEN is shown as it comes.
 */
export function credentialOf(token: string, config: Pick<ConsoleConfig, 'roleClaim' | 'defaultRole'>): Credential {
  if (token.startsWith('sk_live_')) return { label: 'API key', offers: TABLE.offers.api_key ?? NOTHING };
  if (token.startsWith('st_')) return { label: 'machine', offers: TABLE.offers.machine ?? NOTHING };
  const role = roleOf(token, config);
  return { label: role, offers: TABLE.offers[role] ?? NOTHING };
}

function roleOf(token: string, config: Pick<ConsoleConfig, 'roleClaim' | 'defaultRole'>): string {
  const fallback = config.defaultRole || TABLE.roles[0] || '';
  try {
    const claims = JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    const claim = claims[config.roleClaim];
    const named = (Array.isArray(claim) ? claim : [claim]).map((value) => TABLE.roles.indexOf(value as string));
    return TABLE.roles[Math.max(...named)] ?? fallback;
  } catch {
    return fallback;
  }
}
