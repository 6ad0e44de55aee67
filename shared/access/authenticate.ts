import { AuthRequiredError, ForbiddenError, ServiceUnavailableError, WorkspaceNotAllowlistedError } from '../platform/errors.ts';
import { isId } from '../platform/ids.ts';
import type { Clock } from '../platform/clock.ts';
import type { WorkspaceStore } from '../workspaces/index.ts';
import { admitCredential, LAST_USED_GRANULARITY_MS, checkLoginKey } from './admit-credential.ts';
import type { Authenticated, Authenticator, PrefetchKeys, RequestOrigin, RouteCall } from '../platform/http/authentication.ts';
import { checksumHolds, hashToken, issuedTokenShape, type IssuedTokenShape } from './tokens.ts';
import { tokenUseRefusal } from './token-use.ts';
import { MacKeyMissingError, type ServiceMacs } from '../platform/crypto/mac-key.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import { mayCall, roleAuthority, roleFromClaims, type Role } from './permissions.ts';

export { checkLoginKey, LAST_USED_GRANULARITY_MS };

/** Verifies an IdP access token and answers its claims; throws for anything invalid or expired. */
export type AccessTokenVerifier = (token: string) => Promise<Record<string, unknown>>;

const ALLOWED_JWT_ALGORITHMS = new Set(['RS256', 'ES256']);

/**
 * aws-jwt-verify over the configured issuer's JWKS (fetched once, then cached per container). RS256 and ES256
 * only, `exp` required, audience checked. The verifier is loaded and created on the first JWT, not at cold start:
 * most callers use API tokens and never need it (with one issuer, creating it validates nothing that could fail).
 */
export function makeAccessTokenVerifier(options: {
  issuer: string;
  audience: string;
  jwksUri: string;
  requiredType?: string | undefined;
}): AccessTokenVerifier {
  const verifier = loadOnce(() => createVerifier(options));
  return async (token) => (await (await verifier()).verify(token)) as Record<string, unknown>;
}

async function createVerifier(options: Parameters<typeof makeAccessTokenVerifier>[0]) {
  // The subpath, not the package index, which also carries the Cognito and ALB verifiers.
  const { JwtVerifier } = await import('aws-jwt-verify/jwt-verifier');
  return JwtVerifier.create({
    issuer: options.issuer,
    audience: options.audience,
    jwksUri: options.jwksUri,
    customJwtCheck: ({ header, payload }) => {
      checkAccessTokenHeader(header, options.requiredType);
      if (typeof payload.exp !== 'number') throw new Error('exp is required');
      if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 256)
        throw new Error('sub must be 1 to 256 characters');
    },
  });
}

export interface AuthenticatorDeps {
  store: Pick<WorkspaceStore, 'getCredentialContext' | 'touchCredential'>;
  clock: Clock;
  /** The service MACs (unsealed once per container), for the keyed checksum of issued tokens. */
  macs: () => Promise<ServiceMacs>;
  /** Told when recording a key's `lastUsedAt` failed (the request itself goes on). */
  onTouchFailure?: (error: unknown) => void;
  jwt?: { verify: AccessTokenVerifier; workspaceClaim: string; roleClaim: string; defaultRole: Role } | undefined;
}

/** Turns an `Authorization` header into a principal, or throws AUTH_REQUIRED / WORKSPACE_NOT_ALLOWLISTED. */
export function makeAuthenticator(deps: AuthenticatorDeps): Authenticator {
  return async (authorization, prefetch = () => [], origin = {}, route) => {
    const authenticated = await authenticateCaller(deps, authorization, prefetch, origin);
    // The route's own need, decided by the permissions (permissions.ts), after the credential is known.
    if (route && !mayCall(authenticated.principal.authority, route.access)) {
      throw new ForbiddenError(`This credential may not call ${route.routeKey}: it needs an API key or a person with the admin role`);
    }
    return authenticated;
  };
}

export type { Authenticated, Authenticator, PrefetchKeys, RequestOrigin, RouteCall };

async function authenticateCaller(
  deps: AuthenticatorDeps,
  authorization: string | undefined,
  prefetch: PrefetchKeys,
  origin: RequestOrigin,
): Promise<Authenticated> {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  if (!match?.[1]) throw new AuthRequiredError('Authorization: a Bearer token is required');
  const token = match[1];
  const issued = issuedTokenShape(token);
  if (issued) return authenticateIssuedToken(deps, token, issued, prefetch, origin);
  if (token.split('.').length === 3 && deps.jwt) return authenticateAccessToken(deps, deps.jwt, token, prefetch);
  throw new AuthRequiredError('Authorization: the token is not valid');
}

/**
 * Refuses a token this deployment did not issue (its keyed checksum fails) before anything is read: a forged or
 * mistyped token costs no read capacity and no prefetch. A table without a MAC key has issued no token at all.
 */
async function checkIssuedChecksum(deps: AuthenticatorDeps, shape: IssuedTokenShape): Promise<void> {
  let macs: ServiceMacs;
  try {
    macs = await deps.macs();
  } catch (error) {
    if (error instanceof MacKeyMissingError) throw new AuthRequiredError('Authorization: the token is not valid');
    throw error;
  }
  if (!checksumHolds(macs, shape)) throw new AuthRequiredError('Authorization: the token is not valid');
}

async function authenticateIssuedToken(
  deps: AuthenticatorDeps,
  token: string,
  shape: IssuedTokenShape,
  prefetch: PrefetchKeys,
  origin: RequestOrigin,
): Promise<Authenticated> {
  await checkIssuedChecksum(deps, shape);
  const { workspaceId } = shape;
  const tokenHash = hashToken(token);
  // An `st_` token may be a login's, which follows its key's state on the workspace item at once, on every route
  // (decisions.md, "Hardening v1.3"): that item is read strongly consistently with the token even where the route
  // reads ahead eventually (the reveals). The form does not tell a login's token from an access key's own, so every
  // `st_` token pays it: half a read unit more on a reveal, nothing elsewhere.
  const consistentWorkspace = shape.kind === 'machine';
  const {
    token: record,
    workspace,
    prefetched,
  } = await deps.store.getCredentialContext(tokenHash, workspaceId, prefetch(workspaceId), { consistentWorkspace });
  // An AWS key pair's item authenticates SigV4 signatures only (shared/access/sigv4-credentials.ts), never a bearer.
  if (!record || record.workspaceId !== workspaceId || record.awsSecret)
    throw new AuthRequiredError('Authorization: the token is not valid');
  // A login's token in AWS form is a session token only (token-use.ts).
  const refusal = tokenUseRefusal(record, 'bearer');
  if (refusal) throw new AuthRequiredError(`Authorization: ${refusal}`);
  return admitCredential(deps, { tokenHash, record, workspace, prefetched }, origin);
}

async function authenticateAccessToken(
  deps: AuthenticatorDeps,
  jwt: NonNullable<AuthenticatorDeps['jwt']>,
  token: string,
  prefetch: PrefetchKeys,
): Promise<Authenticated> {
  let claims: Record<string, unknown>;
  try {
    claims = await jwt.verify(token);
  } catch (error) {
    if (await isJwksUnavailable(error)) {
      throw new ServiceUnavailableError("Authorization: the identity provider's signing keys could not be fetched; retry shortly");
    }
    // The verifier's message may quote claims; the caller only learns that the token was refused.
    throw new AuthRequiredError('Authorization: the access token is invalid or expired');
  }
  const workspaceId = claims[jwt.workspaceClaim];
  if (typeof workspaceId !== 'string' || !isId('workspace', workspaceId)) {
    throw new AuthRequiredError(`Authorization: the access token has no valid ${jwt.workspaceClaim} claim`);
  }
  const { workspace, prefetched } = await deps.store.getCredentialContext(undefined, workspaceId, prefetch(workspaceId));
  if (!workspace?.allowlisted) throw new WorkspaceNotAllowlistedError();
  const actorSub = personActor(String(claims.sub));
  const authority = roleAuthority(roleFromClaims(claims, jwt.roleClaim, jwt.defaultRole));
  return {
    principal: {
      workspaceId,
      accountId: workspace.accountId,
      kind: 'user',
      actorSub,
      credentialId: actorSub,
      authority,
      reviewedEnvironments: workspace.reviewedEnvironments,
    },
    prefetched,
  };
}

/**
 * The identity provider's keys could not be had (unreachable, non-200, time-out, not a JWKS): not the caller's fault,
 * and worth a retry. A key id missing from a JWKS that was fetched, or the verifier's back-off after one, stays 401.
 */
async function isJwksUnavailable(error: unknown): Promise<boolean> {
  const { FetchError, JwksNotAvailableInCacheError, JwksValidationError } = await import('aws-jwt-verify/error');
  return error instanceof FetchError || error instanceof JwksValidationError || error instanceof JwksNotAvailableInCacheError;
}

/**
 * RS256 or ES256 only, and with a required type (RFC 9068's `at+jwt`) the `typ` header must say so, compared as
 * RFC 8725 asks (case-insensitive, with or without `application/`): an ID token of the same IdP is then refused.
 */
export function checkAccessTokenHeader(header: { alg?: string; typ?: unknown }, requiredType: string | undefined): void {
  if (!header.alg || !ALLOWED_JWT_ALGORITHMS.has(header.alg)) throw new Error('unsupported algorithm');
  const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : undefined;
  if (requiredType && typ !== requiredType.toLowerCase().replace(/^application\//, '')) throw new Error('wrong token type');
}

/**
 * The actorSub of an IdP subject, one to one, so two people can never share an audit identity: a subject that is
 * already one of our `usr_` ids stays as it is; any other gets `usr_` in front; and a subject that could then be
 * mistaken for another's (it starts with `usr_` or `~`, or is a bare id) gets `usr_~` in front instead.
 */
export function personActor(sub: string): string {
  if (isId('user', sub)) return sub;
  const ambiguous = sub.startsWith('usr_') || sub.startsWith('~') || isId('user', `usr_${sub}`);
  return ambiguous ? `usr_~${sub}` : `usr_${sub}`;
}
