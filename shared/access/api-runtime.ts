import { makeAccessTokenVerifier, makeAuthenticator } from './authenticate.ts';
import { logger } from '../platform/logger.ts';
import { runtime, type Runtime } from '../platform/runtime.ts';
import type { IdempotencyDeps } from '../platform/http/idempotency.ts';
import { makeIdempotencyStore } from '../platform/store/idempotency-store.ts';
import { makeWorkspaceStore } from '../workspaces/index.ts';
import { serviceMacsOnFirstUse } from '../platform/crypto/macs-on-first-use.ts';
import type { Config } from '../platform/config.ts';

type ApiRuntime = Runtime & { authenticate: ReturnType<typeof makeAuthenticator>; idempotency: IdempotencyDeps };

let api: ApiRuntime | undefined;

/**
 * The runtime of an API function: also the authenticator (API tokens, machine tokens and, if set up, JWTs) and the
 * idempotency records of the routes that change state.
 */
export function apiRuntime(): ApiRuntime {
  if (api) return api;
  const base = runtime();
  const { config, db } = base;
  warnOfRoleClaimWithoutType(config.jwt);
  const jwt = config.jwt && {
    verify: makeAccessTokenVerifier(config.jwt),
    workspaceClaim: config.jwt.workspaceClaim,
    roleClaim: config.jwt.roleClaim,
    defaultRole: config.jwt.defaultRole,
  };
  const store = makeWorkspaceStore(db);
  const onTouchFailure = (error: unknown) =>
    logger.warn('could not record lastUsedAt', { errorName: (error as { name?: string } | null)?.name });
  const macs = serviceMacsOnFirstUse(config, db);
  const idempotency = { store: makeIdempotencyStore(db), clock: base.clock, macs };
  api = { ...base, authenticate: makeAuthenticator({ store, clock: base.clock, macs, jwt, onTouchFailure }), idempotency };
  return api;
}

/**
 * Warns, once per container (apiRuntime is made once: every API function, and the local stack's handlers in their one
 * process), when a person's role is read from the JWT_ROLE_CLAIM claim and JWT_REQUIRED_TYPE is not set. The claim
 * is read whenever the JWT settings are (it defaults to `roles`), and is never read without them: no JWT is accepted.
 * Without a required `typ`, any token the issuer signs for the audience passes, ID tokens included, and an ID token
 * may carry attributes its user can write (Cognito's `custom:` ones): a role read from such a claim is self-granted.
 * Names the settings and the claim's name, never a token or a claim's value.
 */
function warnOfRoleClaimWithoutType(jwt: Config['jwt']): void {
  if (!jwt || jwt.requiredType) return;
  logger.warn('JWT_ROLE_CLAIM is read without JWT_REQUIRED_TYPE', {
    roleClaim: jwt.roleClaim,
    reason:
      'ID tokens pass too, and may carry claims their user can write (Cognito custom:): use a claim only the IdP sets, and JWT_REQUIRED_TYPE (e.g. at+jwt)',
  });
}
