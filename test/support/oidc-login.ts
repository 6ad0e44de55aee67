import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; the little used here is typed below.
import OidcProvider from 'oidc-provider';
import { memoryAdapter } from './oidc-issuer.ts';

/**
 * A real OpenID provider (oidc-provider, a certified implementation) for people signing in: the authorization code
 * flow with PKCE (S256, required) for public clients, the console (a web client) and the CLI (a native client, whose
 * loopback redirect may use any port, RFC 8252 §7.3). Access tokens are RFC 9068 JWTs (`typ: at+jwt`, RS256) for one
 * resource indicator (RFC 8707), which is also their audience, with each person's claims on top (the workspace and
 * the role the API reads). Served over HTTPS on 127.0.0.1 with `certificate`, which whoever calls it must trust.
 *
 * Refresh tokens go to the clients registered with `refreshTokens`, whatever scope they asked for (as Keycloak gives
 * them): oidc-provider's own default gives one only for `offline_access`, which it honours only with
 * `prompt=consent`. `accessTokenTtlSeconds` makes access tokens short-lived, for the tests of their renewal.
 *
 * The sign-in page is this helper's own (labelled `Username` and `Password`, buttons `Continue` and `Cancel`), as
 * every deployment brings its own; consent is given at once, as a provider does for its own first-party clients.
 */
export interface LoginProvider {
  issuer: string;
  jwksUri: string;
  /** A person who may sign in with `password`; their access tokens carry `claims`. */
  addPerson(name: string, password: string, claims: Record<string, unknown>): void;
  /**
   * Registers a public client (no secret): a web client with exact redirect URIs, or a native one with loopback ones;
   * with `refreshTokens`, it may use the refresh_token grant and is given a refresh token at every sign-in.
   */
  registerClient(client: { clientId: string; redirectUris: string[]; native?: boolean; refreshTokens?: boolean }): void;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
interface Interaction {
  uid: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, string>;
  session?: { accountId: string };
  grantId?: string;
}
interface GrantModel {
  addOIDCScope(scope: string): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}
type Provider = {
  callback(): Handler;
  interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
  interactionFinished(
    request: IncomingMessage,
    response: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  Grant: (new (input: { accountId: string; clientId: string }) => GrantModel) & { find(id: string): Promise<GrantModel> };
};
type ProviderClass = (new (
  issuer: string,
  configuration: Record<string, unknown>,
) => Provider) & { errors: { InvalidTarget: new () => Error } };

const TOKEN_TTL_SECONDS = 600;

export async function startLoginProvider(
  certificate: { cert: string; key: string },
  options: { resource: string; accessTokenTtlSeconds?: number },
): Promise<LoginProvider> {
  let provider: Provider | undefined;
  let handle: Handler | undefined;
  const people = new Map<string, { password: string; claims: Record<string, unknown> }>();
  const store = new Map<string, Record<string, unknown>>();
  const server = createServer(certificate, (request, response) => {
    const interaction = /^\/interaction\/[\w-]+$/.exec(request.url ?? '');
    if (interaction && provider) {
      // A failure of this test provider's own page is shown on it, for whoever reads the test's trace.
      return void signInPage(provider, people, request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(
          `interaction failed: ${(error as Error).message} ${(error as { error_description?: string }).error_description ?? ''}`,
        );
      });
    }
    return handle ? handle(request, response) : response.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const Provider = OidcProvider as ProviderClass;
  provider = new Provider(
    issuer,
    configuration(Provider, store, people, options.resource, options.accessTokenTtlSeconds ?? TOKEN_TTL_SECONDS),
  );
  handle = provider.callback();
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    addPerson: (name, password, claims) => void people.set(name, { password, claims }),
    registerClient: ({ clientId, redirectUris, native, refreshTokens }) =>
      void store.set(`Client:${clientId}`, {
        client_id: clientId,
        application_type: native ? 'native' : 'web',
        redirect_uris: redirectUris,
        grant_types: refreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function configuration(
  Provider: ProviderClass,
  store: Map<string, Record<string, unknown>>,
  people: Map<string, { claims: Record<string, unknown> }>,
  resource: string,
  accessTokenTtl: number,
) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    adapter: memoryAdapter(store),
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: `rsa-${randomUUID()}`, alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    findAccount: async (_ctx: unknown, id: string) => (people.has(id) ? { accountId: id, claims: async () => ({ sub: id }) } : undefined),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ttl: {
      RefreshToken: 600,
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: TOKEN_TTL_SECONDS,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
    // What oidc-provider does by default for public clients, said here so that it does not warn: their redirect origins.
    clientBasedCORS: (_ctx: unknown, origin: string, client: { redirectUris: string[] }) =>
      client.redirectUris.some((uri) => new URL(uri).origin === origin),
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    extraTokenClaims: async (_ctx: unknown, token: { accountId?: string }) =>
      token.accountId ? people.get(token.accountId)?.claims : undefined,
    renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Error</title><p role="alert">${escapeHtml(`${out.error}: ${out.error_description ?? ''}`)}</p>`;
    },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new Provider.errors.InvalidTarget();
          return {
            scope: '',
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: accessTokenTtl,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  };
}

/**
 * The provider's interaction: a sign-in form for the login prompt (a wrong password shows it again), and consent
 * given at once (what the prompt says is missing is granted), as for a first-party client.
 */
async function signInPage(
  provider: Provider,
  people: Map<string, { password: string }>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === 'consent') return consent(provider, details, request, response);
  if (request.method !== 'POST') return form(response, details.uid);
  const body = new URLSearchParams(await text(request));
  if (body.get('action') === 'cancel') {
    return provider.interactionFinished(
      request,
      response,
      { error: 'access_denied', error_description: 'the person cancelled the sign-in' },
      { mergeWithLastSubmission: false },
    );
  }
  const name = body.get('username') ?? '';
  if (people.get(name)?.password !== body.get('password')) return form(response, details.uid, 'Wrong username or password.');
  return provider.interactionFinished(request, response, { login: { accountId: name } }, { mergeWithLastSubmission: false });
}

async function consent(provider: Provider, details: Interaction, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id! });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  await provider.interactionFinished(request, response, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

function form(response: ServerResponse, uid: string, error?: string): void {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>Sign in: test identity provider</title>
<h1>Sign in</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit" name="action" value="login">Continue</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form></html>`,
  );
}

async function text(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
