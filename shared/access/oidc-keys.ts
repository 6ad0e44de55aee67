/**
 * An OIDC issuer's signing keys, as an OIDC login (oidc-login.ts) needs them: the JWKS is found by OpenID discovery
 * (`/.well-known/openid-configuration`, then its `jwks_uri`), both documents are fetched through the webhooks' SSRF
 * guard (guarded-get.ts: https only, every address checked, the checked one pinned, 3 s, 64 KiB, no redirects), and
 * aws-jwt-verify does the cryptography over them. One verifier per issuer per container.
 */
import type { Fetcher } from 'aws-jwt-verify/https';
import type { Jwk } from 'aws-jwt-verify/jwk';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import { loadOnce } from '../platform/on-first-use.ts';
import { guardedGet } from '../net/guarded-get.ts';
import type { AllowedCidrs, LookupAll } from '../net/ssrf.ts';

/** How long one fetch of a discovery document or JWKS may take, DNS to the last byte. */
export const ISSUER_FETCH_TIMEOUT_MS = 3_000;

/** The largest discovery document or JWKS read; real ones are a few KiB. */
export const MAX_ISSUER_DOCUMENT_BYTES = 64 * 1024;

/** Issuers whose verifier a container keeps; past it the least recently added is dropped (and found again if used). */
export const MAX_CACHED_ISSUERS = 100;

/**
 * A failed check of an OIDC login: `reason` is the audit log's word, `message` names the check and never quotes the
 * token. `unavailable` when the issuer's documents could not be had (the caller answers 503, not 401).
 */
export class OidcLoginRefused extends Error {
  readonly reason: string;
  readonly unavailable: boolean;

  constructor(reason: string, message: string, unavailable = false) {
    super(message);
    this.reason = reason;
    this.unavailable = unavailable;
  }
}

/** The SSRF guard's settings: `OIDC_ALLOW_PRIVATE_CIDRS` (config `login.oidcAllowPrivateCidrs`) and a resolver. */
export interface IssuerFetchOptions {
  allow: AllowedCidrs;
  lookup?: LookupAll | undefined;
}

/** What the login asks of an issuer's verifier: the payload of a token whose signature holds, or a throw. */
export interface IssuerVerifier {
  verify(jwt: string): Promise<JwtPayload>;
}

/** The JWS algorithms a login accepts, each with the key type it must be checked with. */
const KEY_TYPE_OF: Readonly<Record<string, { kty: string; crv?: string }>> = {
  RS256: { kty: 'RSA' },
  ES256: { kty: 'EC', crv: 'P-256' },
};

/** Whether `alg` is one a login accepts (RS256 or ES256). */
export function isAcceptedAlgorithm(alg: unknown): boolean {
  return typeof alg === 'string' && Object.hasOwn(KEY_TYPE_OF, alg);
}

/**
 * The verifier of `issuer`'s tokens, made on its first login in this container (discovery, then the verifier) and
 * kept; a discovery that fails is forgotten, so a later login tries again. The JWKS itself is cached by aws-jwt-verify
 * and fetched again when a token names a key id it does not hold (key rotation), through the same guard.
 */
export function makeIssuerVerifiers(options: IssuerFetchOptions): (issuer: string) => Promise<IssuerVerifier> {
  const verifiers = new Map<string, { load: () => Promise<IssuerVerifier>; madeAt: number }>();
  return (issuer) => {
    let verifier = verifiers.get(issuer);
    // Kept VERIFIER_LIFE_MS: a key the issuer withdraws (after a compromise) stops being trusted by then.
    if (verifier === undefined || Date.now() - verifier.madeAt > VERIFIER_LIFE_MS) {
      verifiers.delete(issuer);
      verifier = { load: loadOnce(() => createVerifier(issuer, options)), madeAt: Date.now() };
      verifiers.set(issuer, verifier);
      // Issuers are chosen by whoever creates an access key: the cache must not grow without bound.
      if (verifiers.size > MAX_CACHED_ISSUERS) verifiers.delete(verifiers.keys().next().value!);
    }
    return verifier.load();
  };
}

/** How long an issuer's discovery and keys are kept by a container before they are fetched again. */
export const VERIFIER_LIFE_MS = 15 * 60_000;

async function createVerifier(issuer: string, options: IssuerFetchOptions): Promise<IssuerVerifier> {
  const jwksUri = await discoverJwksUri(issuer, options);
  // Subpaths, not the package index, which also carries the Cognito and ALB verifiers.
  const [{ JwtVerifier }, { SimpleJwksCache }] = await Promise.all([import('aws-jwt-verify/jwt-verifier'), import('aws-jwt-verify/jwk')]);
  return JwtVerifier.create(
    {
      issuer,
      jwksUri,
      // The audience is the access key's, and the time checks are the login's own (with its clock and leeway):
      // an infinite grace turns the library's exp and nbf checks off, so there is one place that decides.
      audience: null,
      graceSeconds: Number.POSITIVE_INFINITY,
      customJwtCheck: ({ header, jwk }) => checkKeyFitsAlgorithm(header, jwk),
    },
    { jwksCache: new SimpleJwksCache({ fetcher: guardedFetcher(options) }) },
  );
}

/**
 * The key that verified the signature must be of the algorithm's type: aws-jwt-verify picks the hash from the
 * header's alg and verifies with whatever key the kid names, so an EC key would otherwise pass a token labelled RS256.
 */
export function checkKeyFitsAlgorithm(header: JwtHeader, jwk: Jwk): void {
  const expected = typeof header.alg === 'string' ? KEY_TYPE_OF[header.alg] : undefined;
  if (expected === undefined || jwk.kty !== expected.kty || (expected.crv !== undefined && jwk.crv !== expected.crv)) {
    throw new OidcLoginRefused('algorithm', "jwt: alg does not fit the type of the issuer's key");
  }
}

/**
 * The `jwks_uri` of the issuer's discovery document (`${issuer}/.well-known/openid-configuration`, a trailing slash of
 * the issuer dropped). It must be https. Throws OidcLoginRefused ('discovery'): unavailable when the document could
 * not be had, not when the guard refused an address or the document names a jwks_uri that is not https.
 */
export async function discoverJwksUri(issuer: string, options: IssuerFetchOptions): Promise<string> {
  const url = `${issuer.endsWith('/') ? issuer.slice(0, -1) : issuer}/.well-known/openid-configuration`;
  const body = await fetchIssuerDocument(url, 'discovery document', options);
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    throw new OidcLoginRefused('discovery', 'issuer: the discovery document is not JSON', true);
  }
  const jwksUri = (document as { jwks_uri?: unknown } | null)?.jwks_uri;
  if (typeof jwksUri !== 'string') throw new OidcLoginRefused('discovery', 'issuer: the discovery document has no jwks_uri', true);
  if (URL.parse(jwksUri)?.protocol !== 'https:')
    throw new OidcLoginRefused('discovery', "issuer: the discovery document's jwks_uri must be https");
  return jwksUri;
}

/** aws-jwt-verify's fetcher, through the guard: the JWKS cache calls it for the jwks_uri (and nothing else). */
export function guardedFetcher(options: IssuerFetchOptions): Fetcher {
  return {
    fetch: async (uri) => {
      const body = await fetchIssuerDocument(uri, 'JWKS', options);
      return new Uint8Array(body).buffer;
    },
  };
}

/** One issuer document through the guard; throws OidcLoginRefused ('discovery') for anything but a 200. */
async function fetchIssuerDocument(url: string, what: string, options: IssuerFetchOptions): Promise<Buffer> {
  const result = await guardedGet(url, {
    allow: options.allow,
    lookup: options.lookup,
    timeoutMs: ISSUER_FETCH_TIMEOUT_MS,
    maxBytes: MAX_ISSUER_DOCUMENT_BYTES,
    userAgent: 'secrets-service-oidc-login/1.0',
  });
  // The guard's own reason names the address a host resolved to: not for a caller who need not even hold a token.
  if (result.kind === 'refused')
    throw new OidcLoginRefused(
      'discovery',
      `issuer: the ${what} url is refused by the SSRF guard (https only, no private or reserved addresses)`,
    );
  if (result.kind === 'failed')
    throw new OidcLoginRefused('discovery', `issuer: the ${what} could not be fetched (${result.reason})`, true);
  if (result.statusCode !== 200) {
    const redirect = result.statusCode >= 300 && result.statusCode < 400 ? ', redirects are not followed' : '';
    throw new OidcLoginRefused('discovery', `issuer: the ${what} could not be fetched (HTTP ${result.statusCode}${redirect})`, true);
  }
  return result.body;
}
