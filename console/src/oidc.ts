import type { ConsoleConfig } from './config.ts';
import { refreshGrant, type RefreshGrant } from './session.ts';

/**
 * Sign-in with the identity provider (issue 28), when the stack sets `consoleClientId`: OpenID Connect authorization
 * code with PKCE (RFC 7636, S256) for a public client, the provider found through its discovery document.
 *
 * No library: Web Crypto makes the verifier, its challenge, the state and the nonce, and fetch does discovery and the
 * code exchange. The console verifies no signature: the API verifies the access token on every request, and the ID
 * token comes straight from the token endpoint over TLS (OpenID Connect Core 3.1.3.7), so only its nonce is compared.
 *
 * What must survive the trip to the provider (state, nonce, verifier) waits in sessionStorage under the
 * `secrets-console.` prefix, which sign-out clears, and is removed as soon as the provider sends the browser back.
 * The token it yields lives where session.ts keeps every token: in memory and sessionStorage, never in a URL.
 *
 * The sign-in asks for `offline_access` as well: a provider that gives a refresh token for it lets the console renew
 * the access token before it expires (keepIdpSessionFresh, with the refresh_token grant, RFC 6749 §6), so a session
 * outlives one access token. The refresh token stays in memory (session.ts), never in storage.
 */

const PENDING_KEY = 'secrets-console.oidc-pending';

/** What one sign-in keeps across the redirect. */
interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
}

interface Provider {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** RFC 9207: the provider names itself in every authorization response. */
  issInResponse: boolean;
}

/** A sign-in that failed, as the sign-in page shows it (never with the code, the verifier or a token). */
class IdpSignInError extends Error {
  /** The provider refused the grant itself (`invalid_grant`: a refresh token revoked or expired): asking again is vain. */
  readonly final: boolean;

  constructor(message: string, final = false) {
    super(message);
    this.final = final;
  }
}

export function idpSignInAvailable(config: ConsoleConfig): boolean {
  return Boolean(config.issuer && config.clientId);
}

/** Where the provider sends the browser back: the console's root, the address the provider has registered. */
const redirectUri = () => `${location.origin}/console/`;

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

const randomText = (length: number) => base64url(crypto.getRandomValues(new Uint8Array(length)));

/** The issuer's discovery document; its issuer must be the one configured (OpenID Connect Discovery 1.0, 4.3). */
async function discover(issuer: string): Promise<Provider> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await reach(url, { headers: { accept: 'application/json' } });
  const document = (response.ok ? await response.json().catch(() => null) : null) as Record<string, unknown> | null;
  if (!document) throw new IdpSignInError(`the identity provider's discovery document could not be read (HTTP ${response.status})`);
  if (document.issuer !== issuer) throw new IdpSignInError(`the identity provider names itself ${String(document.issuer)}, not ${issuer}`);
  const methods = document.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256')) throw new IdpSignInError('the identity provider does not offer PKCE with S256');
  const { authorization_endpoint: authorizationEndpoint, token_endpoint: tokenEndpoint } = document;
  if (typeof authorizationEndpoint !== 'string' || typeof tokenEndpoint !== 'string')
    throw new IdpSignInError('the discovery document names no authorization or token endpoint');
  return { authorizationEndpoint, tokenEndpoint, issInResponse: document.authorization_response_iss_parameter_supported === true };
}

/** fetch, with a failure to reach the provider said as such (CORS and network failures look alike to a page). */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, cache: 'no-store' });
  } catch {
    throw new IdpSignInError(`the identity provider could not be reached at ${new URL(url).origin}`);
  }
}

/** Sends the browser to the provider's sign-in, with a fresh state, nonce and PKCE challenge. */
export async function startIdpSignIn(config: ConsoleConfig): Promise<void> {
  if (!config.issuer || !config.clientId) throw new IdpSignInError('sign-in with the identity provider is not configured');
  const provider = await discover(config.issuer);
  const pending: Pending = { state: randomText(16), nonce: randomText(16), verifier: randomText(32), redirectUri: redirectUri() };
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier));
  const url = new URL(provider.authorizationEndpoint);
  const query = {
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: pending.redirectUri,
    scope: 'openid offline_access',
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
    ...(config.resource ? { resource: config.resource } : {}),
  };
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  location.assign(url.href);
}

/** Whether the address is the provider's answer to a sign-in: at the redirect URI, a code or an error, with a state. */
export function idpSignInReturning(): boolean {
  const params = new URLSearchParams(location.search);
  return location.pathname === new URL(redirectUri()).pathname && params.has('state') && (params.has('code') || params.has('error'));
}

/** What a sign-in or a renewal yields: the access token, and what renews it (null when the provider gave no refresh token). */
export interface IdpTokens {
  accessToken: string;
  refresh: RefreshGrant | null;
}

type Outcome = { token: IdpTokens | null; error?: undefined } | { token?: undefined; error: string };

let outcome: Promise<Outcome> | undefined;

/**
 * On return from the identity provider: the access token for the code in the address, or null when there is none
 * (or the sign-in failed: idpSignInError says why). The code is exchanged once per page, whoever asks first.
 */
export async function completeIdpSignIn(config: ConsoleConfig): Promise<IdpTokens | null> {
  return (await settle(config)).token ?? null;
}

/** Why the sign-in that returned to this page failed, or null. */
export async function idpSignInError(config: ConsoleConfig): Promise<string | null> {
  return (await settle(config)).error ?? null;
}

function settle(config: ConsoleConfig): Promise<Outcome> {
  outcome ??= exchange(config).then(
    (token) => ({ token }),
    (error: unknown) => ({
      error: error instanceof IdpSignInError ? error.message : 'the sign-in with the identity provider failed unexpectedly',
    }),
  );
  return outcome;
}

/** The provider's answer in the address: taken out of it (and its pending sign-in out of storage) before anything else. */
function takeAnswer(): { params: URLSearchParams; pending: Pending | null } {
  const params = new URLSearchParams(location.search);
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  history.replaceState(history.state, '', `${location.pathname}${location.hash}`);
  try {
    return { params, pending: stored ? (JSON.parse(stored) as Pending) : null };
  } catch {
    return { params, pending: null };
  }
}

/** Checks the answer (state, issuer, error) and exchanges its code at the token endpoint: no secret, a public client. */
async function exchange(config: ConsoleConfig): Promise<IdpTokens | null> {
  if (!idpSignInAvailable(config) || !idpSignInReturning()) return null;
  const issuer = config.issuer!;
  const { params, pending } = takeAnswer();
  if (!pending || params.get('state') !== pending.state)
    throw new IdpSignInError('this sign-in was not started in this tab (its state does not match): sign in again');
  const error = params.get('error');
  if (error) throw new IdpSignInError(`the identity provider refused the sign-in: ${error}${quote(params.get('error_description'))}`);
  const provider = await discover(issuer);
  const iss = params.get('iss');
  if (iss !== null ? iss !== issuer : provider.issInResponse)
    throw new IdpSignInError('the answer does not come from the configured identity provider');
  const code = params.get('code')!;
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: pending.redirectUri,
    client_id: config.clientId!,
    code_verifier: pending.verifier,
    ...(config.resource ? { resource: config.resource } : {}),
  });
  const secrets = [code, pending.verifier];
  const answer = await requestTokens(provider.tokenEndpoint, body, 'the code exchange', secrets);
  if (typeof answer.id_token === 'string' && claimsOf(answer.id_token)?.nonce !== pending.nonce)
    throw new IdpSignInError("the ID token does not carry this sign-in's nonce");
  return tokensOf(answer);
}

interface TokenAnswer {
  access_token: string;
  id_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
}

/** A grant at the token endpoint (a public client: no secret); a refusal names the step and the provider's error. */
async function requestTokens(endpoint: string, body: URLSearchParams, step: string, secrets: string[]): Promise<TokenAnswer> {
  const response = await reach(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body,
  });
  const answer = (await response.json().catch(() => ({}))) as Partial<TokenAnswer> & { error?: unknown; error_description?: unknown };
  if (!response.ok) {
    const reason = typeof answer.error === 'string' ? answer.error.slice(0, 100) : `HTTP ${response.status}`;
    const description =
      typeof answer.error_description === 'string'
        ? secrets.reduce((text, secret) => text.split(secret).join('…'), answer.error_description)
        : null;
    throw new IdpSignInError(`the identity provider refused ${step}: ${reason}${quote(description)}`, answer.error === 'invalid_grant');
  }
  if (typeof answer.access_token !== 'string' || !answer.access_token)
    throw new IdpSignInError('the identity provider answered no access token');
  return answer as TokenAnswer;
}

/** Without `expires_in` or `exp`, a token is renewed as if it lasted this long. */
const DEFAULT_LIFETIME_MS = 300_000;

/** The access token, when it expires (the earlier of `expires_in` and its own `exp`), and the refresh token, if any. */
function tokensOf(answer: TokenAnswer, heldRefreshToken: string | null = null): IdpTokens {
  const exp = claimsOf(answer.access_token)?.exp;
  const ends = [
    typeof answer.expires_in === 'number' ? Date.now() + answer.expires_in * 1000 : undefined,
    typeof exp === 'number' ? exp * 1000 : undefined,
  ].filter((end): end is number => end !== undefined);
  const expiresAt = ends.length ? Math.min(...ends) : Date.now() + DEFAULT_LIFETIME_MS;
  // A provider that does not rotate refresh tokens answers none on renewal: the one held renews the next token too.
  const given = typeof answer.refresh_token === 'string' && answer.refresh_token ? answer.refresh_token : null;
  const refreshToken = given ?? heldRefreshToken;
  return { accessToken: answer.access_token, refresh: refreshToken ? { refreshToken, expiresAt } : null };
}

/**
 * When to renew a token that expires at `expiresAt`: a minute before it does, or, for a token that lasts less than
 * four minutes, once three quarters of its life are gone (a tab in the background may fire its timers late).
 */
function renewalDelay(expiresAt: number, now: number): number {
  const life = expiresAt - now;
  return Math.max(0, Math.max(life * 0.75, life - 60_000));
}

/** After a renewal failed for a reason that may pass (the provider unreachable, a 5xx), it is tried again this soon. */
const RETRY_MS = 10_000;

/**
 * Keeps the session of a sign-in with the identity provider fresh while it has a refresh token: renews the access
 * token before it expires and gives the new one to `on.renewed` (with the refresh token that renews it next, as
 * providers that rotate refresh tokens hand out). A refresh token the provider refuses (`invalid_grant`: revoked,
 * expired, its session ended) is forgotten (`on.refused`): the access token then lasts as long as it does, and the API's 401 brings
 * the person back to sign-in. Answers a stop, for sign-out.
 */
export function keepIdpSessionFresh(config: ConsoleConfig, on: { renewed: (tokens: IdpTokens) => void; refused: () => void }): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const plan = (delay: number) => {
    if (!stopped) timer = setTimeout(() => void renew(), delay);
  };
  const renew = async () => {
    const grant = refreshGrant();
    if (stopped || !grant || !config.issuer || !config.clientId) return;
    try {
      const provider = await discover(config.issuer);
      const body = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: grant.refreshToken,
        client_id: config.clientId,
        ...(config.resource ? { resource: config.resource } : {}),
      });
      const answer = await requestTokens(provider.tokenEndpoint, body, 'the renewal', [grant.refreshToken]);
      if (stopped) return;
      const tokens = tokensOf(answer, grant.refreshToken);
      on.renewed(tokens);
      if (tokens.refresh) plan(renewalDelay(tokens.refresh.expiresAt, Date.now()));
    } catch (error) {
      if (error instanceof IdpSignInError && error.final) return on.refused();
      if (Date.now() + RETRY_MS < grant.expiresAt) plan(RETRY_MS);
    }
  };
  const grant = refreshGrant();
  if (grant) plan(renewalDelay(grant.expiresAt, Date.now()));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

const quote = (text: string | null) => (text ? ` (${text.slice(0, 200)})` : '');

function claimsOf(jwt: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(atob((jwt.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
