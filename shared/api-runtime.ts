import { makeAccessTokenVerifier, makeAuthenticator } from './auth/authenticate.ts';
import { logger } from './logger.ts';
import { runtime, type Runtime } from './runtime.ts';
import { makeWorkspaceStore } from './store/workspaces.ts';

let api: (Runtime & { authenticate: ReturnType<typeof makeAuthenticator> }) | undefined;

/** The runtime of an API function: also the authenticator (API tokens, machine tokens and, if set up, JWTs). */
export function apiRuntime(): Runtime & { authenticate: ReturnType<typeof makeAuthenticator> } {
  if (api) return api;
  const base = runtime();
  const { config, db } = base;
  const jwt = config.jwt && { verify: makeAccessTokenVerifier(config.jwt), workspaceClaim: config.jwt.workspaceClaim };
  const store = makeWorkspaceStore(db);
  const onTouchFailure = (error: unknown) => logger.warn('could not record lastUsedAt', { errorName: (error as { name?: string } | null)?.name });
  api = { ...base, authenticate: makeAuthenticator({ store, clock: base.clock, jwt, onTouchFailure }) };
  return api;
}
