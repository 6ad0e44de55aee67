import { makeAccessTokenVerifier, makeAuthenticator } from './auth/authenticate.ts';
import { makeDocumentClient } from './clients/dynamodb.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import { logger } from './logger.ts';
import { makeStore, type Store } from './store/index.ts';

export interface Runtime {
  config: Config;
  store: Store;
  clock: Clock;
  authenticate: ReturnType<typeof makeAuthenticator>;
}

let current: Runtime | undefined;

/**
 * The container's configuration, clients and store, made once at cold start (module scope of each handler) and
 * shared by every handler module loaded in the same process.
 */
export function runtime(): Runtime {
  if (current) return current;
  const config = loadConfig();
  const store = makeStore(makeDocumentClient({ endpoint: config.dynamodbEndpoint }), config.tableName);
  const jwt = config.jwt && { verify: makeAccessTokenVerifier(config.jwt), workspaceClaim: config.jwt.workspaceClaim };
  const onTouchFailure = (error: unknown) => logger.warn('could not record lastUsedAt', { errorName: (error as { name?: string } | null)?.name });
  current = { config, store, clock: systemClock, authenticate: makeAuthenticator({ store, clock: systemClock, jwt, onTouchFailure }) };
  return current;
}
