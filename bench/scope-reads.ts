import { systemClock } from '../shared/platform/clock.ts';
import { makeDocumentClient } from '../shared/platform/clients/dynamodb.ts';
import { LOCAL_MASTER_KEY_FILE, makeLocalKeyring } from '../shared/platform/crypto/local-keyring.ts';
import { ensureOperatorMacs } from '../shared/platform/crypto/mac-key.ts';
import { makeWorkspaceAdminService } from '../shared/workspaces/workspace-wiring.ts';
import { makeWorkspaceStore } from '../shared/workspaces/index.ts';
import { makeMacKeyStore } from '../shared/platform/store/mac-key-store.ts';
import type { makeCallRecorder } from './calls.ts';
import { request, type Api } from './load.ts';
import { oneEnvironmentReader } from './scope-rules.ts';

/**
 * What a key that sees one environment reads to list and search, against the API key (which sees everything), in a
 * workspace of its own: 1,000 secrets, 50 in each of 20 environments (4 projects of 5). A list reads the
 * environment's partition either way; a search by the API key reads the workspace's index (GSI1), by the scoped key
 * only its environment's (GSI4). Priced at AWS billing (bench/billing.ts), warm (the second of two calls).
 */
const PROJECTS = 4;
const ENVIRONMENTS = 5;
const SECRETS = 50;
/** Keys `q` matches: 2 of each environment's 50, so 40 in the workspace, under a page of 50. */
const MATCHED = new Set([7, 31]);
const Q = 'database';
/** The environment the scoped key reads (project 2, environment 3). */
const SCOPED = { project: 1, environment: 2 };
/** Writes in flight while seeding. */
const LANES = 8;

export interface ScopeLocalStack {
  baseUrl: string;
  dynamodbEndpoint: string;
  tableName: string;
  /** The stack's folder, which holds the local keyring's master key. */
  localDir: string;
}

type Recorder = ReturnType<typeof makeCallRecorder>;

/** A workspace of its own, made as the admin CLI makes one: the stack's API key's workspace holds the bench's other data. */
async function newWorkspace(stack: ScopeLocalStack): Promise<string> {
  const doc = makeDocumentClient({ endpoint: stack.dynamodbEndpoint });
  const keys = makeLocalKeyring({ keyFile: `${stack.localDir}/${LOCAL_MASTER_KEY_FILE}` });
  const macs = await ensureOperatorMacs(makeMacKeyStore({ doc, tableName: stack.tableName }), keys);
  const admin = makeWorkspaceAdminService({
    store: makeWorkspaceStore({ doc, tableName: stack.tableName }),
    clock: systemClock,
    operator: 'bench:scope',
    macs: async () => macs,
  });
  return (await admin.createWorkspace({ name: 'Scope bench', allowlisted: true })).apiKey;
}

/** The workspace's projects and environments and their 1,000 secrets; answers the scoped environment's ids and slugs. */
async function seed(api: Api) {
  const environments: { id: string; slug: string; projectSlug: string }[] = [];
  for (let p = 0; p < PROJECTS; p++) {
    const project = (await request(api, 'POST', '/api/v1/projects', { name: `Team ${p}` }, 201)).data;
    for (let e = 0; e < ENVIRONMENTS; e++) {
      const environment = (await request(api, 'POST', `/api/v1/projects/${project.id}/environments`, { name: `env-${e}` }, 201)).data;
      environments.push({ id: environment.id, slug: environment.slug, projectSlug: project.slug });
    }
  }
  const writes = environments.flatMap((environment) =>
    Array.from({ length: SECRETS }, (_, i) => ({ environment, key: MATCHED.has(i) ? `DATABASE_URL_${i}` : `SERVICE_SECRET_${i}` })),
  );
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let w = writes.shift(); w; w = writes.shift())
        await request(api, 'PUT', `/api/v1/environments/${w.environment.id}/secrets`, { key: w.key, value: `value-of-${w.key}` });
    }),
  );
  return environments[SCOPED.project * ENVIRONMENTS + SCOPED.environment]!;
}

/** One read's figures with one credential: per request, warm. */
export interface ScopeRead {
  dynamodbRequests: number;
  operations: string[];
  billedReadUnits: number;
  itemsRead: number;
  /** Secrets the answer held, and whether it said there were more (a page cut short by its read budget says so). */
  answered: number;
  hasMore: boolean;
}

export interface ScopeReadResults {
  workspace: { secrets: number; environments: number; scopedKeySees: string; q: string; matchesPerEnvironment: number };
  listEnvironment: { apiKey: ScopeRead; scopedKey: ScopeRead };
  search: { apiKey: ScopeRead; scopedKey: ScopeRead };
  searchQ: { apiKey: ScopeRead; scopedKey: ScopeRead };
}

/** Measures listing and searching with the API key and with a key that reads one environment. */
export async function measureScopeReads(stack: ScopeLocalStack, recorder: Recorder): Promise<ScopeReadResults> {
  const apiKey = { baseUrl: stack.baseUrl, apiKey: await newWorkspace(stack) };
  const scoped = await seed(apiKey);
  const permissions = oneEnvironmentReader(scoped.projectSlug, scoped.slug);
  const token = (await request(apiKey, 'POST', '/api/v1/access-keys', { name: 'one environment', permissions }, 201)).data.token as string;
  const scopedKey = { baseUrl: stack.baseUrl, apiKey: token };
  const read = async (api: Api, routeKey: string, path: string): Promise<ScopeRead> => {
    let answer = { data: [] as unknown[], meta: { page: { hasMore: false } } };
    const call = async () => void (answer = await request(api, 'GET', path));
    await call();
    const { dynamodbRequests, operations = [], billedReadUnits, itemsRead = 0 } = await recorder.measure([routeKey], call);
    return { dynamodbRequests, operations, billedReadUnits, itemsRead, answered: answer.data.length, hasMore: answer.meta.page.hasMore };
  };
  const both = async (routeKey: string, path: string) => ({
    apiKey: await read(apiKey, routeKey, path),
    scopedKey: await read(scopedKey, routeKey, path),
  });
  return {
    workspace: {
      secrets: PROJECTS * ENVIRONMENTS * SECRETS,
      environments: PROJECTS * ENVIRONMENTS,
      scopedKeySees: `${scoped.projectSlug}/${scoped.slug} (${SECRETS} secrets, read only)`,
      q: Q,
      matchesPerEnvironment: MATCHED.size,
    },
    listEnvironment: await both('GET /api/v1/environments/{envId}/secrets', `/api/v1/environments/${scoped.id}/secrets?limit=50`),
    search: await both('GET /api/v1/search/secrets', '/api/v1/search/secrets?limit=50'),
    searchQ: await both('GET /api/v1/search/secrets', `/api/v1/search/secrets?limit=50&q=${Q}`),
  };
}
