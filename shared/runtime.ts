import { makeAccessTokenVerifier, makeAuthenticator } from './auth/authenticate.ts';
import { makeDocumentClient } from './clients/dynamodb.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import { logger } from './logger.ts';
import { makeAccessKeyStore } from './store/access-keys.ts';
import { makeCursorKeyLoader, makePager, type Db, type Pager } from './store/dynamo.ts';
import { makeWorkspaceStore } from './store/workspaces.ts';

export interface Runtime {
  config: Config;
  /** The table and its document client; each function builds only the stores it uses over it. */
  db: Db;
  pager: Pager;
  clock: Clock;
}

let current: Runtime | undefined;
let api: (Runtime & { authenticate: ReturnType<typeof makeAuthenticator> }) | undefined;

/**
 * The container's configuration and DynamoDB client, made once at cold start (module scope of each handler) and
 * shared by every handler module loaded in the same process.
 */
export function runtime(): Runtime {
  if (current) return current;
  const config = loadConfig();
  const db: Db = { doc: makeDocumentClient({ endpoint: config.dynamodbEndpoint }), tableName: config.tableName };
  current = { config, db, pager: makePager(db, makeCursorKeyLoader(db)), clock: systemClock };
  return current;
}

/** The runtime of an API function: also the authenticator (API tokens, machine tokens and, if set up, JWTs). */
export function apiRuntime(): Runtime & { authenticate: ReturnType<typeof makeAuthenticator> } {
  if (api) return api;
  const base = runtime();
  const { config, db, pager } = base;
  const jwt = config.jwt && { verify: makeAccessTokenVerifier(config.jwt), workspaceClaim: config.jwt.workspaceClaim };
  const store = { ...makeWorkspaceStore(db), touchAccessKey: makeAccessKeyStore(db, pager).touchAccessKey };
  const onTouchFailure = (error: unknown) => logger.warn('could not record lastUsedAt', { errorName: (error as { name?: string } | null)?.name });
  api = { ...base, authenticate: makeAuthenticator({ store, clock: base.clock, jwt, onTouchFailure }) };
  return api;
}
