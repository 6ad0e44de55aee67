import { makeAccessTokenVerifier, makeAuthenticator } from './auth/authenticate.ts';
import { logger } from './logger.ts';
import { runtime, type Runtime } from './runtime.ts';
import type { IdempotencyDeps } from './http/idempotency.ts';
import { makeIdempotencyStore } from './store/idempotency.ts';
import { makeWorkspaceStore } from './store/workspaces.ts';

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
  const jwt = config.jwt && { verify: makeAccessTokenVerifier(config.jwt), workspaceClaim: config.jwt.workspaceClaim };
  const store = makeWorkspaceStore(db);
  const onTouchFailure = (error: unknown) => logger.warn('could not record lastUsedAt', { errorName: (error as { name?: string } | null)?.name });
  const idempotency = { store: makeIdempotencyStore(db), clock: base.clock };
  api = { ...base, authenticate: makeAuthenticator({ store, clock: base.clock, jwt, onTouchFailure }), idempotency };
  return api;
}
