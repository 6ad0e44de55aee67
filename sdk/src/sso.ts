import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from './base-url.js';

/**
 * A person's sign-in from the command line (issue 28): OpenID Connect authorization code with PKCE (RFC 7636, S256)
 * for a native public client, the browser sent back to a loopback redirect on 127.0.0.1 with an ephemeral port
 * (RFC 8252 §7.3), the provider found through its discovery document. Nothing here prints or throws the code, the
 * verifier or a token: errors name the step and the provider's error code.
 *
 * The sign-in asks for `offline_access` too: a provider that answers a refresh token with the access token lets the
 * CLI renew the access token later (refreshSsoTokens, the refresh_token grant of RFC 6749 §6), so a session outlives
 * one access token.
 */

export interface SsoLoginOptions {
  issuer: string;
  clientId: string;
  /** RFC 8707 resource indicator (the API), for providers that issue its JWT access tokens only for a named resource. */
  resource?: string | undefined;
  /** Given the authorization URL as soon as it exists: the CLI prints it (and opens a browser when asked). */
  onAuthorizationUrl: (url: string) => void;
  /** Told of a callback that was refused while the login goes on waiting (a request that is not this login's). */
  onIgnored?: (why: string) => void;
  /** How long to wait for the browser (default 5 minutes). */
  timeoutMs?: number;
}

export interface SsoTokens {
  accessToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** The access token's `sub`, for messages. */
  subject?: string | undefined;
  /** What renews the access token, when the provider gave one. */
  refreshToken?: string | undefined;
}

/** What a renewal needs: the provider, the CLI's client id, the resource the tokens are for, and the refresh token. */
export type SsoRefreshOptions = Pick<SsoLoginOptions, 'issuer' | 'clientId' | 'resource'> & { refreshToken: string };

/** A sign-in that failed; its message never holds the code, the verifier or a token. */
export class SsoError extends Error {
  /** The provider refused the grant itself (`invalid_grant`: a refresh token revoked or expired): asking again is vain. */
  readonly final: boolean;

  constructor(message: string, final = false) {
    super(message);
    this.final = final;
  }
}

const CALLBACK_PATH = '/callback';
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** Without `expires_in` or `exp`, a token is kept no longer than this. */
const DEFAULT_LIFETIME_MS = 3_600_000;
const base64url = (bytes: Buffer) => bytes.toString('base64url');

interface Provider {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** RFC 9207: the provider names itself in every authorization response. */
  issInResponse: boolean;
}

/** Signs a person in through their browser and answers the access token for the API, with its end. */
export async function ssoLogin(options: SsoLoginOptions): Promise<SsoTokens> {
  const provider = await discover(options.issuer);
  const verifier = base64url(randomBytes(32));
  const state = base64url(randomBytes(16));
  const nonce = base64url(randomBytes(16));
  const loopback = await startLoopback(state, options.onIgnored);
  try {
    const url = new URL(provider.authorizationEndpoint);
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const query = {
      response_type: 'code',
      client_id: options.clientId,
      redirect_uri: loopback.redirectUri,
      scope: 'openid offline_access',
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...resourceOf(options),
    };
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    options.onAuthorizationUrl(url.href);
    const callback = await withTimeout(loopback.received, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    if (callback.iss !== undefined ? callback.iss !== provider.issuer : provider.issInResponse) {
      throw new SsoError('the authorization response does not name the configured issuer (RFC 9207): not used');
    }
    const grant = {
      grant_type: 'authorization_code',
      code: callback.code,
      redirect_uri: loopback.redirectUri,
      client_id: options.clientId,
      code_verifier: verifier,
      ...resourceOf(options),
    };
    return tokensOf(await exchange(provider.tokenEndpoint, grant, [callback.code, verifier], 'the code exchange'), nonce);
  } finally {
    loopback.close();
  }
}

/**
 * A new access token for a refresh token, at the provider's token endpoint (found again through discovery). The
 * answer carries the refresh token to keep: the provider's new one when it rotates them, else the one given.
 */
export async function refreshSsoTokens(options: SsoRefreshOptions): Promise<SsoTokens> {
  const provider = await discover(options.issuer);
  const grant = {
    grant_type: 'refresh_token',
    refresh_token: options.refreshToken,
    client_id: options.clientId,
    ...resourceOf(options),
  };
  const tokens = tokensOf(await exchange(provider.tokenEndpoint, grant, [options.refreshToken], 'the renewal'), undefined);
  return { ...tokens, refreshToken: tokens.refreshToken ?? options.refreshToken };
}

const resourceOf = (options: Pick<SsoLoginOptions, 'resource'>): Record<string, string> =>
  options.resource ? { resource: options.resource } : {};

/** The issuer's discovery document (OpenID Connect Discovery 1.0): its issuer must be the one configured. */
async function discover(issuer: string): Promise<Provider> {
  checkEndpoint(issuer, 'the issuer');
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await reach(url, { headers: { accept: 'application/json' } });
  const document = (response.ok ? await response.json().catch(() => null) : null) as Record<string, unknown> | null;
  if (!document) throw new SsoError(`the identity provider's discovery document could not be read (HTTP ${response.status} from ${url})`);
  if (document.issuer !== issuer) throw new SsoError(`the discovery document names the issuer ${String(document.issuer)}, not ${issuer}`);
  const methods = document.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256')) throw new SsoError('the identity provider does not offer PKCE with S256');
  return {
    issuer,
    authorizationEndpoint: checkEndpoint(document.authorization_endpoint, 'authorization_endpoint'),
    tokenEndpoint: checkEndpoint(document.token_endpoint, 'token_endpoint'),
    issInResponse: document.authorization_response_iss_parameter_supported === true,
  };
}

/** An endpoint over https (http only on this machine, as the API's base URL), or SsoError naming it. */
function checkEndpoint(value: unknown, name: string): string {
  const url = typeof value === 'string' ? URL.parse(value) : null;
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))) {
    throw new SsoError(`${name} must be an https:// URL (http:// only to a loopback host)`);
  }
  return url.href;
}

/** fetch with a 10 s bound; a provider that cannot be reached is said so, with the cause. */
async function reach(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new SsoError(
      `the identity provider could not be reached at ${new URL(url).origin} (${cause?.code ?? cause?.message ?? (error as Error).message})`,
    );
  }
}

interface Loopback {
  redirectUri: string;
  received: Promise<{ code: string; iss?: string | undefined }>;
  close: () => void;
}

/**
 * The redirect's listener, on 127.0.0.1 and a port the system picks. Only a callback with this login's state counts
 * (compared in constant time); any other is answered 400 and the login goes on waiting for its own.
 */
async function startLoopback(state: string, onIgnored: SsoLoginOptions['onIgnored']): Promise<Loopback> {
  let settle!: { resolve: (value: { code: string; iss?: string | undefined }) => void; reject: (error: Error) => void };
  const received = new Promise<{ code: string; iss?: string | undefined }>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) return page(response, 404, 'Nothing is here.');
    const params = url.searchParams;
    if (!sameSecret(params.get('state'), state)) {
      onIgnored?.("a request to the sign-in callback without this login's state was refused");
      return page(response, 400, 'This sign-in was not started here (its state does not match). Return to the terminal.');
    }
    const error = params.get('error');
    const code = params.get('code');
    if (error || !code) {
      page(response, 400, 'The sign-in did not succeed. Return to the terminal.');
      return settle.reject(
        new SsoError(
          `the identity provider refused the sign-in: ${error ?? 'no code'}${describeError(params.get('error_description'), [])}`,
        ),
      );
    }
    page(response, 200, 'Signed in. You can close this tab and return to the terminal.');
    settle.resolve({ code, iss: params.get('iss') ?? undefined });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    redirectUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`,
    received,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

/** The loopback's answer to the browser: plain text in a page that loads nothing and sends no referrer. */
function page(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'",
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  response.end(`<!doctype html><meta charset="utf-8"><title>secrets login</title><p>${text}</p>\n`);
}

function sameSecret(given: string | null, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The provider's description, quoted short, with anything secret of this login cut out. */
function describeError(description: string | null | undefined, secrets: string[]): string {
  if (!description) return '';
  const clean = secrets.reduce((text, secret) => text.split(secret).join('…'), description).slice(0, 200);
  return ` (${clean})`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SsoError(`no sign-in came back from the browser within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type TokenAnswer = { access_token: string; expires_in?: unknown; id_token?: unknown; refresh_token?: unknown };

/** The code exchange at the token endpoint: a public client, so no secret; PKCE's verifier proves the code is ours. */
async function exchange(endpoint: string, grant: Record<string, string>, secrets: string[], step: string): Promise<TokenAnswer> {
  const body = new URLSearchParams(grant);
  const response = await reach(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body,
  });
  const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown; error_description?: unknown };
  if (!response.ok) {
    const code = typeof answer.error === 'string' ? answer.error.slice(0, 100) : `HTTP ${response.status}`;
    throw new SsoError(
      `the identity provider refused ${step}: ${code}${describeError(typeof answer.error_description === 'string' ? answer.error_description : null, secrets)}`,
      answer.error === 'invalid_grant',
    );
  }
  if (typeof answer.access_token !== 'string' || answer.access_token === '')
    throw new SsoError('the identity provider answered no access token');
  return answer as TokenAnswer;
}

/** The claims of a JWT, unverified (the API verifies the access token; the ID token came straight over TLS). */
export function jwtClaims(jwt: string): Record<string, unknown> | undefined {
  try {
    const claims: unknown = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The token and its end (the earlier of `expires_in` and the JWT's `exp`), and the refresh token if one came. An ID
 * token that came with a sign-in must carry its nonce (OpenID Connect Core 3.1.3.7: from the token endpoint over TLS,
 * its signature may go unchecked); a renewal has no nonce (Core 12.2: the ID token it may answer carries none).
 */
function tokensOf(answer: TokenAnswer, nonce: string | undefined): SsoTokens {
  if (nonce !== undefined && typeof answer.id_token === 'string' && jwtClaims(answer.id_token)?.nonce !== nonce) {
    throw new SsoError("the ID token does not carry this login's nonce: not used");
  }
  const claims = jwtClaims(answer.access_token);
  const ends = [
    typeof answer.expires_in === 'number' ? Date.now() + answer.expires_in * 1000 : undefined,
    typeof claims?.exp === 'number' ? claims.exp * 1000 : undefined,
  ].filter((end): end is number => end !== undefined);
  const expiresAt = ends.length ? Math.min(...ends) : Date.now() + DEFAULT_LIFETIME_MS;
  return {
    accessToken: answer.access_token,
    expiresAt,
    subject: typeof claims?.sub === 'string' ? claims.sub : undefined,
    refreshToken: typeof answer.refresh_token === 'string' && answer.refresh_token ? answer.refresh_token : undefined,
  };
}
