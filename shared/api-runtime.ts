import { makeAccessTokenVerifier, makeAuthenticator } from './auth/authenticate.ts';
import { logger } from './logger.ts';
import { runtime, type Runtime } from './runtime.ts';
import type { IdempotencyDeps } from './http/idempotency.ts';
import { makeIdempotencyStore } from './store/idempotency.ts';
import { makeWorkspaceStore } from './store/workspaces.ts';
import { makeMacKeyStore } from './store/mac-key.ts';
import { loadServiceMacs, type ServiceMacs } from './crypto/mac-key.ts';
import { configuredEncryption, type Config } from './config.ts';
import { loadOnce } from './on-first-use.ts';
import type { Db } from './store/send.ts';

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
  const jwt = config.jwt && {
    verify: makeAccessTokenVerifier(config.jwt),
    workspaceClaim: config.jwt.workspaceClaim,
    roleClaim: config.jwt.roleClaim,
    defaultRole: config.jwt.defaultRole,
  };
  const store = makeWorkspaceStore(db);
  const onTouchFailure = (error: unknown) => logger.warn('could not record lastUsedAt', { errorName: (error as { name?: string } | null)?.name });
  const macs = serviceMacsOnFirstUse(config, db);
  const idempotency = { store: makeIdempotencyStore(db), clock: base.clock, macs };
  api = { ...base, authenticate: makeAuthenticator({ store, clock: base.clock, macs, jwt, onTouchFailure }), idempotency };
  return api;
}

/**
 * The service MACs of an API function, read and unsealed on the first issued token or Idempotency-Key and then
 * kept for the container's life (one GetItem and one KMS Decrypt per container). The key provider, with the KMS
 * client, loads with them (a chunk of its own): a request with a JWT and no Idempotency-Key never needs them.
 */
export function serviceMacsOnFirstUse(config: Config, db: Db): () => Promise<ServiceMacs> {
  configuredEncryption(config);
  return loadOnce(async () => loadServiceMacs(makeMacKeyStore(db), async () => (await import('./crypto/key-provider-from-config.ts')).keyProviderFromConfig(config)));
}
