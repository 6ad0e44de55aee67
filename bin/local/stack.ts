import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { hashToken } from '../../shared/auth/tokens.ts';
import { makeDocumentClient } from '../../shared/clients/dynamodb.ts';
import { systemClock } from '../../shared/clock.ts';
import { loadOrCreateMasterKey } from '../../shared/crypto/local-keyring.ts';
import { handlerEntry, ROUTE_GROUPS, type RouteGroup } from '../../shared/routes.ts';
import { makeWorkspaceAdminService } from '../../shared/services/workspaces.ts';
import { makeStore, type Store } from '../../shared/store/index.ts';
import { freePort, startDynamoDbLocal } from './dynamodb.ts';
import { startHttpFront, type FrontRoute, type LambdaHandler } from './http-front.ts';
import { ensureTable } from './table.ts';

export const PROJECT_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const LOCAL_TABLE = 'secrets-local';

export interface LocalStackOptions {
  /** Where data, keys and stack.json live. */
  localDir: string;
  /** HTTP port of the API (0 = any free port). */
  port: number;
  /** DynamoDB Local's port (default: any free port). */
  dynamoPort?: number;
  /** Keep the table on disk under localDir (default) or in memory (tests). */
  persist?: boolean;
}

/** What `LOCAL_DIR/stack.json` holds; the admin CLI and tests read it too. */
export interface StackInfo {
  baseUrl: string;
  workspaceId: string;
  apiKey: string;
  dynamodbEndpoint: string;
  tableName: string;
}

export interface LocalStack extends StackInfo {
  stop(): Promise<void>;
}

/**
 * The whole service on this machine: DynamoDB Local with streams, the table from the CDK's own definition, the
 * real route-group handlers behind a local API Gateway, and a bootstrap workspace that survives restarts.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const localDir = resolve(options.localDir);
  mkdirSync(localDir, { recursive: true });
  const dynamo = await startDynamoDbLocal({
    port: options.dynamoPort ?? (await freePort()),
    dataDir: options.persist === false ? null : join(localDir, 'dynamodb'),
  });
  try {
    const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(admin, LOCAL_TABLE);
    admin.destroy();
    // The local keyring stands in for KMS: its AES-256 master key is made under localDir on first start.
    const keyFile = join(localDir, 'master.key');
    await loadOrCreateMasterKey(keyFile);
    Object.assign(process.env, {
      TABLE_NAME: LOCAL_TABLE,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      LOCAL_KEYRING_FILE: keyFile,
      AWS_REGION: process.env.AWS_REGION ?? 'local',
    });
    const store = makeStore(makeDocumentClient({ endpoint: dynamo.endpoint }), LOCAL_TABLE);
    const bootstrap = await ensureBootstrapWorkspace(store, localDir);
    const front = await startHttpFront({ port: options.port, routes: await loadRoutes() });
    const info: StackInfo = { baseUrl: front.url, ...bootstrap, dynamodbEndpoint: dynamo.endpoint, tableName: LOCAL_TABLE };
    writeFileSync(join(localDir, 'stack.json'), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
    return {
      ...info,
      async stop() {
        await front.close();
        await dynamo.stop();
      },
    };
  } catch (error) {
    await dynamo.stop();
    throw error;
  }
}

/** Imports each route group's real handler module, as Lambda would, once the environment is set. */
async function loadRoutes(): Promise<FrontRoute[]> {
  const routes: FrontRoute[] = [];
  for (const group of Object.keys(ROUTE_GROUPS) as RouteGroup[]) {
    const module = (await import(pathToFileURL(join(PROJECT_ROOT, handlerEntry(group))).href)) as { handler: LambdaHandler };
    for (const routeKey of ROUTE_GROUPS[group]) routes.push({ routeKey, functionName: group, handler: module.handler });
  }
  return routes;
}

/**
 * The allowlisted workspace and API key of this local stack: made on first start and kept in
 * `LOCAL_DIR/bootstrap.json` (mode 600, local use only), so a restart prints the same key.
 */
async function ensureBootstrapWorkspace(store: Store, localDir: string): Promise<{ workspaceId: string; apiKey: string }> {
  const file = join(localDir, 'bootstrap.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { workspaceId: string; apiKey: string };
    const token = await store.getToken(hashToken(saved.apiKey));
    if (token && !token.revokedAt && token.workspaceId === saved.workspaceId) return saved;
  }
  const admin = makeWorkspaceAdminService({ store, clock: systemClock });
  const created = await admin.createWorkspace({ name: 'Local workspace', allowlisted: true });
  const saved = { workspaceId: created.workspaceId, apiKey: created.apiKey };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}
