import { GetQueueUrlCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { LOCAL_SYNC_QUEUE } from '../../../bin/local/syncs.ts';
import { makeSqsClient } from '../../../shared/platform/clients/sqs.ts';
import { newId } from '../../../shared/platform/ids.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { parseSyncMessage, type SyncMessage } from '../../../shared/syncs/sync-queue.ts';
import { call, localStore, newWorkspace, userToken } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * The syncs API over the local stack (decisions.md v1.4, "Syncs"): admins make syncs of each destination type, never
 * shown a token; another workspace sees none of them; a developer may not use the routes; each change is audited and
 * a new sync, `run` and a resume queue a full sync on the sync queue (which nothing consumes here yet: the test reads
 * it).
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

/** Reads the sync queue until a full-sync message of `syncId` arrives (others' messages are left to time out). */
async function queuedFor(syncId: string, within = 10_000): Promise<SyncMessage> {
  const sqs = makeSqsClient({ endpoint: inject('stack').sqsEndpoint });
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: LOCAL_SYNC_QUEUE }));
  const until = Date.now() + within;
  while (Date.now() < until) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    const found = (out.Messages ?? []).map((m) => parseSyncMessage(m.Body ?? '')).find((m) => m?.syncId === syncId);
    if (found) return found;
  }
  throw new Error(`no sync message for ${syncId}`);
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
  it('creates a sync of each destination type (201, pending), never answering the token, and queues a full sync', async () => {
    const made = [];
    for (const destination of [github, ssm, secretsManager]) {
      const answer = await create(ws.apiKey, destination, { keys: 'DB_*' });
      expect(answer.status).toBe(201);
      expect(answer.body.data).toMatchObject({ environmentId: envId, keys: 'DB_*', prune: false, status: 'pending', lastError: null });
      made.push(answer.body.data);
    }
    expect(made.map((sync) => sync.destination)).toEqual([{ type: 'github-actions', repository: 'acme/web' }, ssm, secretsManager]);
    expect(JSON.stringify(made)).not.toContain(TOKEN);
    const message = await queuedFor(made[0].id);
    expect(message).toMatchObject({ workspaceId: ws.workspaceId, syncId: made[0].id, keys: null, attempt: 1 });
    const { doc, tableName } = localStore();
    const item = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.sync(ws.workspaceId, made[0].id) }))).Item!;
    expect(JSON.stringify(item)).not.toContain(TOKEN);
    expect(item.sealedToken).toBeDefined();
  });

  it('lists, shows, changes and deletes; the audit log has sync.create, sync.update (tokenChanged, no token) and sync.delete', async () => {
    const made = (await create(ws.apiKey, github)).body.data;
    const listed = await call('GET', `/api/v1/syncs?environmentId=${envId}&limit=200`, { token: ws.apiKey });
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(made.id);
    expect((await call('GET', `/api/v1/syncs/${made.id}`, { token: ws.apiKey })).body.data).toEqual(made);
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

  it('pauses (run is CONFLICT), resumes (pending, a full sync queued), runs (202, queued)', async () => {
    const made = (await create(ws.apiKey, ssm)).body.data;
    await queuedFor(made.id);
    const patch = (paused: boolean) => call('PATCH', `/api/v1/syncs/${made.id}`, { token: ws.apiKey, body: { paused } });
    expect((await patch(true)).body.data.status).toBe('paused');
    const refused = await call('POST', `/api/v1/syncs/${made.id}/run`, { token: ws.apiKey });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'CONFLICT']);
    expect((await patch(false)).body.data.status).toBe('pending');
    await queuedFor(made.id);
    const run = await call('POST', `/api/v1/syncs/${made.id}/run`, { token: ws.apiKey });
    expect([run.status, run.body.data.id]).toEqual([202, made.id]);
    expect(await queuedFor(made.id)).toMatchObject({ keys: null, attempt: 1 });
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
