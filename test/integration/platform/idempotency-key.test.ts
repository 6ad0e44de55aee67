import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { createHash } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../shared/platform/store/keys.ts';
import { newEnvironment, scanTable } from '../../support/secrets.ts';
import { deliveriesOf, registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let counter = 0;
const freshKey = () => `key-${Date.now()}-${counter++}`;

describe('Idempotency-Key', () => {
  let ws: Ws;
  let envId: string;
  let projectId: string;
  const receivers: HttpsReceiver[] = [];
  const auditCount = async () => (await localStore().store.listAudit(ws.workspaceId, { limit: 200 })).items.length;

  beforeAll(async () => {
    ws = await newWorkspace();
    const created = await newEnvironment(ws.apiKey, { project: 'idem', environment: 'prod' });
    envId = created.environment.id;
    projectId = created.project.id;
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  /** Sends a request twice with one key: the second answers the first's status and body, replayed, and changes nothing. */
  async function twice(method: string, path: string, body?: unknown) {
    const headers = { 'idempotency-key': freshKey() };
    const first = await call(method, path, { token: ws.apiKey, headers, ...(body === undefined ? {} : { body }) });
    const auditAfterFirst = await auditCount();
    const second = await call(method, path, { token: ws.apiKey, headers, ...(body === undefined ? {} : { body }) });
    expect(second.status, `${method} ${path}`).toBe(first.status);
    expect(second.body, `${method} ${path}`).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await auditCount(), `${method} ${path}: no new audit entry`).toBe(auditAfterFirst);
    return first;
  }

  it('replays every state-changing route without changing anything again', async () => {
    // Prepare / Act / Assess, route by route
    expect((await twice('POST', '/api/v1/projects', { name: 'Once' })).status).toBe(201);
    expect((await twice('POST', `/api/v1/projects/${projectId}/environments`, { name: 'once' })).status).toBe(201);
    const put = await twice('PUT', `/api/v1/environments/${envId}/secrets`, { key: 'ONCE', value: 'v1' });
    expect(put.body.data.version).toBe(1);
    const rotated = await twice('PUT', `/api/v1/environments/${envId}/secrets`, { key: 'ONCE', value: 'v2' });
    expect(rotated.body.data.version).toBe(2);
    expect((await twice('POST', `/api/v1/secrets/${put.body.data.id}/rollback`, { version: 1 })).body.data.version).toBe(3);
    const versions = await call('GET', `/api/v1/secrets/${put.body.data.id}/versions`, { token: ws.apiKey });
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect((await twice('DELETE', `/api/v1/secrets/${put.body.data.id}`)).body.data).toEqual({ id: put.body.data.id, deleted: true });
    const key = await twice('POST', '/api/v1/access-keys', { name: 'once' });
    expect((await twice('POST', `/api/v1/access-keys/${key.body.data.id}/revoke`)).body.data.status).toBe('revoked');
    const receiver = await startReceiver({ status: 500 });
    receivers.push(receiver);
    const endpoint = await twice('POST', '/api/v1/webhooks', {
      url: `https://localhost:${receiver.port}/h`,
      events: ['service.secret.create'],
    });
    expect(endpoint.body.data.secret).toMatch(/^whsec_/);
    expect((await twice('PATCH', `/api/v1/webhooks/${endpoint.body.data.id}`, { description: 'once' })).body.data.description).toBe('once');
    expect((await twice('DELETE', `/api/v1/webhooks/${endpoint.body.data.id}`)).body.data.deleted).toBe(true);
  });

  it('replays a refusal (4xx) too, and answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another request', async () => {
    const refused = await twice('POST', `/api/v1/projects/proj_01JZZZZZZZZZZZZZZZZZZZZZZZ/environments`, { name: 'nope' });
    expect(refused.status).toBe(404);
    const headers = { 'idempotency-key': freshKey() };
    await call('POST', '/api/v1/projects', { token: ws.apiKey, headers, body: { name: 'First' } });
    const reused = await call('POST', '/api/v1/projects', { token: ws.apiKey, headers, body: { name: 'Second' } });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherIfMatch = await call('PUT', `/api/v1/environments/${envId}/secrets`, {
      token: ws.apiKey,
      headers: { ...headers },
      body: { key: 'X', value: 'v' },
    });
    expect(otherIfMatch.status).toBe(422);
  });

  it('replays a write whose record the code before keyed digests left (raw key, unkeyed SHA-256) instead of writing twice', async () => {
    // Prepare: the first PUT ran before the upgrade: its version exists, and its record is of the old form, as the
    // old code stored it (under the key itself, the SHA-256 of route, path, query, body and If-Match)
    const key = freshKey();
    const body = { key: 'ACROSS_UPGRADE', value: 'v1' };
    const first = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body });
    const parts = ['PUT /api/v1/environments/{envId}/secrets', { envId }, {}, body, null];
    const { doc, tableName } = localStore();
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.legacyIdempotency(ws.workspaceId, ws.apiKeyId, key),
          type: 'IdempotencyRecord',
          requestHash: createHash('sha256').update(JSON.stringify(parts)).digest('hex'),
          state: 'done',
          answer: { status: first.status, body: JSON.stringify(first.body) },
          ttl: Math.floor(Date.now() / 1000) + 3600,
        },
      }),
    );
    // Act: the client's retry reaches the upgraded service, and a different request with the same key
    const retry = await call('PUT', `/api/v1/environments/${envId}/secrets`, {
      token: ws.apiKey,
      headers: { 'idempotency-key': key },
      body,
    });
    const other = await call('PUT', `/api/v1/environments/${envId}/secrets`, {
      token: ws.apiKey,
      headers: { 'idempotency-key': key },
      body: { ...body, value: 'v2' },
    });
    // Assess: the first answer again, no second version; the other request is refused as before the upgrade
    expect([retry.status, retry.headers.get('idempotent-replayed'), retry.body]).toEqual([200, 'true', first.body]);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const versions = await call('GET', `/api/v1/secrets/${first.body.data.id}/versions`, { token: ws.apiKey });
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([1]);
  });

  it('stores neither the Idempotency-Key nor an unkeyed digest of the request in the record', async () => {
    // Prepare
    const key = freshKey();
    const body = { key: 'KEYED_DIGEST', value: 'a guessable PIN 1234' };
    const parts = ['PUT /api/v1/environments/{envId}/secrets', { envId }, {}, body, null];
    const unkeyed = createHash('sha256').update(JSON.stringify(parts)).digest();
    // Act
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, headers: { 'idempotency-key': key }, body });
    // Assess
    const { doc, tableName } = localStore();
    const pk = keys.idempotency(ws.workspaceId, ws.apiKeyId, 'x').PK;
    const records = JSON.stringify(
      (
        await doc.send(
          new QueryCommand({ TableName: tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }),
        )
      ).Items,
    );
    expect(records).toContain('MAC#');
    expect(records).not.toContain(key);
    for (const form of ['hex', 'base64', 'base64url'] as const) expect(records).not.toContain(unkeyed.toString(form));
  });

  it('runs two simultaneous requests with one key once: the other is CONFLICT or the replay', async () => {
    const headers = { 'idempotency-key': freshKey() };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, headers, body: { key: 'RACED_ONCE', value: 'v' } }),
      ),
    );
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const versions = answers.filter((a) => a.status === 200).map((a) => a.body.data.version);
    expect(new Set(versions)).toEqual(new Set([1]));
    const conflicts = answers.filter((a) => a.status === 409);
    for (const conflict of conflicts) expect(conflict.body.error.message).toMatch(/still running/);
    // Retry-After is what is left of the first request's 60-second lease: when its answer, or the key, is to be had.
    for (const conflict of conflicts) expect(Number(conflict.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    for (const conflict of conflicts) expect(Number(conflict.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('replays an access key creation with the same token, and stores it only sealed', async () => {
    const headers = { 'idempotency-key': freshKey() };
    const first = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, headers, body: { name: 'replayed' } });
    const second = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, headers, body: { name: 'replayed' } });
    expect(second.body.data.token).toBe(first.body.data.token);
    const raw = JSON.stringify(await scanTable(), (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
    expect(raw).not.toContain(first.body.data.token);
    expect(raw).not.toContain(first.body.data.token.slice(3, 46));
  });

  it('makes no second delivery for a replayed manual retry, and validates the key', async () => {
    const receiver = await startReceiver({ status: 200 });
    receivers.push(receiver);
    const endpoint = await registerEndpoint(ws.apiKey, `https://localhost:${receiver.port}/r`, ['service.secret.create']);
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'DELIVERED_ONCE', value: 'v' } });
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(ws.apiKey, endpoint.id);
      return list.length > 0 && list[0]!.status === 'success' ? list : undefined;
    });
    const retried = await twice('POST', `/api/v1/webhook-deliveries/${delivery!.id}/retry`);
    expect(retried.status).toBe(202);
    await waitFor(async () => receiver.requests.length >= 2 || undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(2);
    const bad = await call('POST', '/api/v1/projects', {
      token: ws.apiKey,
      headers: { 'idempotency-key': 'x'.repeat(256) },
      body: { name: 'n' },
    });
    expect(bad.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'Idempotency-Key: must be 1 to 255 printable ASCII characters' });
    expect((await call('GET', '/api/v1/projects', { token: ws.apiKey, headers: { 'idempotency-key': 'ignored' } })).status).toBe(200);
  });
});
