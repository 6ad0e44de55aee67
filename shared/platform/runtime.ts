import { makeDocumentClient } from './clients/dynamodb.ts';
import { systemClock, type Clock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import { makeCursorKeyLoader } from './store/cursor-key.ts';
import { makePager, type Pager } from './store/pager.ts';
import type { Db } from './store/send.ts';

export interface Runtime {
  config: Config;
  /** The table and its document client; each function builds only the stores it uses over it. */
  db: Db;
  pager: Pager;
  clock: Clock;
}

let current: Runtime | undefined;

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
