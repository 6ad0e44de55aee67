import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace, userToken } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { waitFor } from '../../support/webhooks.ts';

/**
 * The syncs API over the local stack (decisions.md v1.4, "Syncs"): admins make syncs of each destination type, never
 * shown a token; another workspace sees none of them; a developer may not use the routes; each change is audited and
 * a new sync, `run` and a resume queue a full sync, which the sync worker pushes (lastSyncedAt moves on).
 */

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let other: Awaited<ReturnType<typeof newWorkspace>>;
let envId: string;
let developer: string;
const TOKEN = 'ghp_IntegrationToken0123456789';

const create = (token: string, destination: Record<string, unknown>, more: Record<string, unknown> = {}) =>
  call('POST', '/api/v1/syncs', { token, body: { environmentId: envId, destination, ...more } });
const github = { type: 'github-actions', repository: 'acme/web', token: TOKEN };
const ssm = { type: 'aws-ssm', region: 'us-east-1', pathPrefix: '/app/prod/' };
const secretsManager = { type: 'aws-secrets-manager', region: 'us-east-1', namePrefix: 'app/prod', mode: 'json' };

/**
 * Waits until the sync worker has pushed the sync after `since` (its lastSyncedAt moved on): the full push a new
 * sync, a resume and `run` queue. The environment holds no secret, so each push succeeds sending nothing.
 */
async function pushedAfter(syncId: string, since: string | null = null) {
  return waitFor(
    async () => {
      const sync = (await call('GET', `/api/v1/syncs/${syncId}`, { token: ws.apiKey })).body.data;
      return sync.lastSyncedAt !== null && sync.lastSyncedAt !== since ? sync : undefined;
    },
    20_000,
    `a push of ${syncId}`,
  );
}

beforeAll(async () => {
  ws = await newWorkspace();
  other = await newWorkspace();
  ({
    environment: { id: envId },
  } = await newEnvironment(ws.apiKey, { project: 'sync', environment: 'prod' }));
  developer = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: 'developer' });
});

describe('syncs API', () => {
  it('creates a sync of each destination type (201, pending), never answering the token, and pushes it whole', async () => {
    const made = [];
    for (const destination of [github, ssm, secretsManager]) {
      const answer = await create(ws.apiKey, destination, { keys: 'DB_*' });
      expect(answer.status).toBe(201);
      expect(answer.body.data).toMatchObject({ environmentId: envId, keys: 'DB_*', prune: false, status: 'pending', lastError: null });
      made.push(answer.body.data);
    }
    expect(made.map((sync) => sync.destination)).toEqual([{ type: 'github-actions', repository: 'acme/web' }, ssm, secretsManager]);
    expect(JSON.stringify(made)).not.toContain(TOKEN);
    // Each push succeeds sending nothing (the environment holds no secret); the AWS ones through moto's server, this
    // stack's SYNC_AWS_ENDPOINT, where a sync without roleArn may write.
    for (const sync of made) expect(await pushedAfter(sync.id)).toMatchObject({ status: 'ok', lastError: null });
    const { doc, tableName } = localStore();
    const item = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.sync(ws.workspaceId, made[0].id) }))).Item!;
    expect(JSON.stringify(item)).not.toContain(TOKEN);
    expect(item.sealedToken).toBeDefined();
  });

  it('lists, shows, changes and deletes; the audit log has sync.create, sync.update (tokenChanged, no token) and sync.delete', async () => {
    const made = (await create(ws.apiKey, github)).body.data;
    const listed = await call('GET', `/api/v1/syncs?environmentId=${envId}&limit=200`, { token: ws.apiKey });
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(made.id);
    // As made, but for what its pushes changed since (status, lastSyncedAt, lastError).
    const {
      status: _s,
      lastSyncedAt: _l,
      lastError: _e,
      ...shown
    } = (await call('GET', `/api/v1/syncs/${made.id}`, { token: ws.apiKey })).body.data;
    const { status: _ms, lastSyncedAt: _ml, lastError: _me, ...asMade } = made;
    expect(shown).toEqual(asMade);
    const patched = await call('PATCH', `/api/v1/syncs/${made.id}`, {
      token: ws.apiKey,
      body: { destination: { type: 'github-actions', token: 'ghp_Rotated987' }, keys: 'API_*', prune: true },
    });
    expect([patched.status, patched.body.data.keys, patched.body.data.prune]).toEqual([200, 'API_*', true]);
    const typeChange = await call('PATCH', `/api/v1/syncs/${made.id}`, { token: ws.apiKey, body: { destination: ssm } });
    expect([typeChange.status, typeChange.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await call('DELETE', `/api/v1/syncs/${made.id}`, { token: ws.apiKey })).body.data).toEqual({ id: made.id, deleted: true });
    expect((await call('GET', `/api/v1/syncs/${made.id}`, { token: ws.apiKey })).status).toBe(404);
    const audit = await call('GET', `/api/v1/audit?target=${made.id}`, { token: ws.apiKey });
    const entries = (audit.body.data as { action: string; target: string; metadata: Record<string, unknown> }[]).filter(
      (entry) => entry.target === made.id,
    );
    expect(entries.map((entry) => entry.action).sort()).toEqual(['sync.create', 'sync.delete', 'sync.update']);
    const update = entries.find((entry) => entry.action === 'sync.update')!;
    expect(update.metadata).toMatchObject({ syncId: made.id, environmentId: envId, destinationType: 'github-actions', tokenChanged: true });
    expect(JSON.stringify(entries)).not.toMatch(/ghp_/);
  });

  it('pauses (run is CONFLICT), resumes (pending, then a full push), runs (202, then a full push)', async () => {
    const made = (await create(ws.apiKey, github)).body.data;
    const first = await pushedAfter(made.id);
    const patch = (paused: boolean) => call('PATCH', `/api/v1/syncs/${made.id}`, { token: ws.apiKey, body: { paused } });
    expect((await patch(true)).body.data.status).toBe('paused');
    const refused = await call('POST', `/api/v1/syncs/${made.id}/run`, { token: ws.apiKey });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'CONFLICT']);
    expect((await patch(false)).body.data.status).toBe('pending');
    const resumed = await pushedAfter(made.id, first.lastSyncedAt);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const run = await call('POST', `/api/v1/syncs/${made.id}/run`, { token: ws.apiKey });
    expect([run.status, run.body.data.id]).toEqual([202, made.id]);
    expect(await pushedAfter(made.id, resumed.lastSyncedAt)).toMatchObject({ status: 'ok' });
  });

  it('is NOT_FOUND to another workspace, FORBIDDEN to a developer, and names the field of a bad destination', async () => {
    const made = (await create(ws.apiKey, ssm)).body.data;
    for (const [method, path] of [
      ['GET', `/api/v1/syncs/${made.id}`],
      ['PATCH', `/api/v1/syncs/${made.id}`],
      ['DELETE', `/api/v1/syncs/${made.id}`],
      ['POST', `/api/v1/syncs/${made.id}/run`],
    ] as const) {
      const answer = await call(method, path, { token: other.apiKey, ...(method === 'PATCH' && { body: { prune: true } }) });
      expect([method, answer.status, answer.body.error.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    expect((await call('GET', '/api/v1/syncs', { token: other.apiKey })).body.data).toEqual([]);
    const foreignEnv = await call('POST', '/api/v1/syncs', { token: other.apiKey, body: { environmentId: envId, destination: ssm } });
    expect(foreignEnv.status).toBe(404);
    for (const answer of [await create(developer, ssm), await call('GET', '/api/v1/syncs', { token: developer })])
      expect([answer.status, answer.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const bad = await create(ws.apiKey, { ...ssm, region: 'Europe' });
    expect([bad.status, bad.body.error.code, bad.body.error.message]).toEqual([
      400,
      'VALIDATION_ERROR',
      expect.stringContaining('destination.region: must be an AWS region'),
    ]);
  });

  it('takes a local http apiUrl where the stack opens loopback (WEBHOOK_ALLOW_PRIVATE_CIDRS), refuses a private one it does not', async () => {
    const local = await create(ws.apiKey, { ...github, apiUrl: 'http://127.0.0.1:9/api' });
    expect([local.status, local.body.data.destination.apiUrl]).toEqual([201, 'http://127.0.0.1:9/api']);
    const privateUrl = await create(ws.apiKey, { ...github, apiUrl: 'https://10.0.0.1/api' });
    expect([privateUrl.status, privateUrl.body.error.message]).toEqual([400, expect.stringMatching(/^destination\.apiUrl: /)]);
  });
});
