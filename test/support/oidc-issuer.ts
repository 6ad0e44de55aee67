import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
// @ts-expect-error oidc-provider ships no type declarations; the little used here is typed below.
import OidcProvider from 'oidc-provider';

/** A running OpenID provider: its issuer url (discovery at `${issuer}/.well-known/openid-configuration`). */
export interface OidcIssuer {
  issuer: string;
  /** A JWT access token signed by the provider (RS256), with this `sub`, this `aud` and the extra claims on top. */
  mint(input: { subject: string; audience: string; claims?: Record<string, unknown> }): Promise<string>;
  close(): Promise<void>;
}

/** What is asked of one mint, found again by its resource indicator while the provider makes the token. */
interface PendingMint {
  subject: string;
  audience: string;
  claims: Record<string, unknown>;
}

/** The slice of oidc-provider's API used here. */
type Provider = { callback(): (request: IncomingMessage, response: ServerResponse) => void };
type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => Provider;
type IssuedToken = { resourceServer?: { identifier(): string } };

const CLIENT_ID = 'workload-minter';
const TOKEN_TTL_SECONDS = 600;

/**
 * A real OpenID provider (oidc-provider, the certified Node.js implementation) over HTTPS on 127.0.0.1, served with
 * `certificate` (which whoever verifies its tokens must trust, e.g. with NODE_EXTRA_CA_CERTS or `trustCertificate`).
 *
 * Tokens come from the provider's own token endpoint: the client_credentials grant with a resource indicator
 * (RFC 8707) and JWT access tokens, signed with the provider's key and published in its JWKS. A client_credentials
 * token's `sub` is its client id, and extraTokenClaims cannot replace it, so each mint registers what it asks for
 * under a fresh resource indicator: `getResourceServerInfo` answers that audience (and the JWT format), and the
 * provider's JWT customizer (`formats.customizers.jwt`) sets `sub` and the extra claims before the provider signs.
 */
export async function startOidcIssuer(certificate: { cert: string; key: string }): Promise<OidcIssuer> {
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server = createServer(certificate, (req, res) => (handle ? handle(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pending = new Map<string, PendingMint>();
  const clientSecret = randomBytes(32).toString('base64url');
  const provider = new (OidcProvider as ProviderClass)(issuer, providerConfiguration(pending, clientSecret));
  handle = provider.callback();
  return {
    issuer,
    mint: async ({ subject, audience, claims = {} }) => {
      const resource = `urn:oidc-issuer-test:mint:${randomUUID()}`;
      pending.set(resource, { subject, audience, claims });
      try {
        return await requestToken(issuer, certificate.cert, clientSecret, resource);
      } finally {
        pending.delete(resource);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function providerConfiguration(pending: Map<string, PendingMint>, clientSecret: string): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: `rsa-${randomUUID()}`, alg: 'RS256', use: 'sig' };
  const mintOf = (resource: string | undefined) => {
    const mint = resource === undefined ? undefined : pending.get(resource);
    if (mint === undefined) throw new Error(`oidc-issuer: no mint is pending for resource ${resource}`);
    return mint;
  };
  return {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [signingKey] },
    adapter: memoryAdapter(),
    ttl: { ClientCredentials: TOKEN_TTL_SECONDS },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: '',
          audience: mintOf(resource).audience,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    formats: {
      customizers: {
        jwt: (_ctx: unknown, token: IssuedToken, jwt: { payload: Record<string, unknown> }) => {
          const mint = mintOf(token.resourceServer?.identifier());
          Object.assign(jwt.payload, { sub: mint.subject }, mint.claims);
        },
      },
    },
  };
}

/**
 * The provider's storage, one per provider and for its life: oidc-provider's default adapter does the same, but warns
 * on every start that it is for development only, which is what this is. Entries are `${model}:${id}`: a client put
 * in `store` as `Client:${client_id}` is found by the provider as a registered client.
 */
export function memoryAdapter(store = new Map<string, Record<string, unknown>>()) {
  return class MemoryAdapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
      store.set(`${this.#model}:${id}`, payload);
    }

    async find(id: string): Promise<Record<string, unknown> | undefined> {
      return store.get(`${this.#model}:${id}`);
    }

    /** Sessions are found by their uid too (the authorization code flow's interactions and tokens ask for them). */
    async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
      for (const [key, payload] of store) if (key.startsWith(`${this.#model}:`) && payload.uid === uid) return payload;
      return undefined;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      const payload = store.get(`${this.#model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      store.delete(`${this.#model}:${id}`);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, payload] of store) if (key.startsWith(`${this.#model}:`) && payload.grantId === grantId) store.delete(key);
    }
  };
}

/** POSTs the client_credentials grant to the provider's token endpoint, trusting only the issuer's certificate. */
function requestToken(issuer: string, ca: string, clientSecret: string, resource: string): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: CLIENT_ID,
    client_secret: clientSecret,
    resource,
  }).toString();
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${issuer}/token`,
      { method: 'POST', ca, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            access_token?: string;
            error?: string;
            error_description?: string;
          };
          if (response.statusCode === 200 && typeof answer.access_token === 'string') resolve(answer.access_token);
          else
            reject(
              new Error(
                `oidc-issuer: the token endpoint answered ${response.statusCode} ${answer.error ?? ''} ${answer.error_description ?? ''}`,
              ),
            );
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
