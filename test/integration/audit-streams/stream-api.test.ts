import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace, userToken } from '../../support/api.ts';

/** A new stream's delivery health (read-only fields of the answer): nothing has happened yet. */
const NEVER_DELIVERED = { failingSince: null, lastDeliveredAt: null, lastError: null };

/**
 * The audit streams API over the local stack (decisions.md v1.4, "Audit streams and tamper evidence"): admins make
 * streams of each type, shown an https stream's signing secret once and never a credential; the credentials are
 * sealed in the item; another workspace sees none of them; a developer may not use the routes; each change is
 * audited without a credential; the eleventh stream of a workspace is LIMIT_EXCEEDED. Delivery is
 * stream-delivery.test.ts's.
 */

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let other: Awaited<ReturnType<typeof newWorkspace>>;
let developer: string;
const HEADER = 'Bearer IntegrationHeaderValue0123';
const TOKEN = 'IntegrationSplunkToken-0123456789';
const API_KEY = 'fedcba9876543210fedcba9876543210';

// The local stack opens loopback to the SSRF guard (WEBHOOK_ALLOW_PRIVATE_CIDRS), as for webhooks.
const https = { type: 'https', url: 'https://127.0.0.1:9/audit', headers: { Authorization: HEADER } };
const splunk = { type: 'splunk-hec', url: 'https://127.0.0.1:9/services/collector', token: TOKEN };
const datadog = { type: 'datadog', site: 'us5.datadoghq.com', apiKey: API_KEY };

const create = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/api/v1/audit-streams', { token, body, headers });
const storedItem = async (workspaceId: string, id: string) => {
  const { doc, tableName } = localStore();
  return (await doc.send(new GetCommand({ TableName: tableName, Key: keys.auditStream(workspaceId, id) }))).Item!;
};

beforeAll(async () => {
  ws = await newWorkspace();
  other = await newWorkspace();
  developer = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: 'developer' });
});

describe('audit streams API', () => {
  it('creates a stream of each type (201, active): the whsec_ secret once, credentials sealed in the item and never answered', async () => {
    const made = [];
    for (const body of [https, splunk, datadog]) {
      const answer = await create(ws.apiKey, body);
      expect(answer.status).toBe(201);
      made.push(answer.body.data);
    }
    expect(made[0]).toEqual({
      id: expect.stringMatching(/^as_/),
      type: 'https',
      url: https.url,
      headers: ['Authorization'],
      secret: expect.stringMatching(/^whsec_/),
      secretHint: `whsec_…${made[0].secret.slice(-4)}`,
      status: 'active',
      createdAt: expect.any(String),
      ...NEVER_DELIVERED,
    });
    expect(made[1]).toEqual({
      id: expect.stringMatching(/^as_/),
      type: 'splunk-hec',
      url: splunk.url,
      status: 'active',
      createdAt: expect.any(String),
      ...NEVER_DELIVERED,
    });
    expect(made[2]).toEqual({
      id: expect.stringMatching(/^as_/),
      type: 'datadog',
      site: datadog.site,
      status: 'active',
      createdAt: expect.any(String),
      ...NEVER_DELIVERED,
    });
    expect(JSON.stringify(made)).not.toMatch(new RegExp(`${HEADER}|${TOKEN}|${API_KEY}`));
    const items = await Promise.all(made.map((stream) => storedItem(ws.workspaceId, stream.id)));
    expect(items.map((item) => Object.keys(item.sealed).sort())).toEqual([['headers', 'secret'], ['token'], ['apiKey']]);
    expect(JSON.stringify(items)).not.toMatch(new RegExp(`${HEADER}|${TOKEN}|${API_KEY}|${made[0].secret}`));
    // Read back: the same, but for the delivery health (the stream delivers to a port where nothing listens).
    const shown = await call('GET', `/api/v1/audit-streams/${made[0].id}`, { token: ws.apiKey });
    const { secret: _secret, failingSince: _f, lastError: _e, ...withoutSecret } = made[0];
    expect(shown.body.data).toMatchObject(withoutSecret);
    expect(shown.body.data).not.toHaveProperty('secret');
  });

  it('answers a replayed create (same Idempotency-Key) with the same stream and secret, made once', async () => {
    const key = { 'idempotency-key': newId('request') };
    const first = await create(ws.apiKey, https, key);
    const again = await create(ws.apiKey, https, key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.data).toEqual(first.body.data);
    const listed = await call('GET', '/api/v1/audit-streams?limit=50', { token: ws.apiKey });
    expect(listed.body.data.filter((s: { id: string }) => s.id === first.body.data.id)).toHaveLength(1);
  });

  it('lists, changes (token, headers, status), refuses another type’s field, deletes; audited without a credential', async () => {
    const made = (await create(ws.apiKey, splunk)).body.data;
    const listed = await call('GET', '/api/v1/audit-streams?limit=50', { token: ws.apiKey });
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(made.id);
    const patch = (body: Record<string, unknown>) => call('PATCH', `/api/v1/audit-streams/${made.id}`, { token: ws.apiKey, body });
    const rotated = await patch({ token: 'RotatedSplunkToken-987' });
    expect([rotated.status, rotated.body.data.status]).toEqual([200, 'active']);
    expect((await patch({ status: 'disabled' })).body.data.status).toBe('disabled');
    expect((await patch({ status: 'active' })).body.data.status).toBe('active');
    const wrong = await patch({ apiKey: API_KEY });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.message]).toEqual([
      400,
      'VALIDATION_ERROR',
      expect.stringMatching(/^apiKey: a splunk-hec stream has none/),
    ]);
    expect((await call('DELETE', `/api/v1/audit-streams/${made.id}`, { token: ws.apiKey })).body.data).toEqual({
      id: made.id,
      deleted: true,
    });
    expect((await call('GET', `/api/v1/audit-streams/${made.id}`, { token: ws.apiKey })).status).toBe(404);
    const audit = await call('GET', `/api/v1/audit?target=${made.id}`, { token: ws.apiKey });
    const entries = (audit.body.data as { action: string; metadata: Record<string, unknown> }[]).map((e) => [e.action, e.metadata.changed]);
    expect(entries.sort()).toEqual(
      [
        ['audit_stream.create', undefined],
        ['audit_stream.delete', undefined],
        ['audit_stream.update', ['status']],
        ['audit_stream.update', ['status']],
        ['audit_stream.update', ['token']],
      ].sort(),
    );
    expect(JSON.stringify(audit.body.data)).not.toMatch(/SplunkToken/);
  });

  it('is NOT_FOUND to another workspace, FORBIDDEN to a developer, and names the field of a bad url', async () => {
    const made = (await create(ws.apiKey, datadog)).body.data;
    for (const [method, path] of [
      ['GET', `/api/v1/audit-streams/${made.id}`],
      ['PATCH', `/api/v1/audit-streams/${made.id}`],
      ['DELETE', `/api/v1/audit-streams/${made.id}`],
    ] as const) {
      const answer = await call(method, path, { token: other.apiKey, ...(method === 'PATCH' && { body: { status: 'disabled' } }) });
      expect([method, answer.status, answer.body.error.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    expect((await call('GET', '/api/v1/audit-streams', { token: other.apiKey })).body.data).toEqual([]);
    for (const answer of [await create(developer, datadog), await call('GET', '/api/v1/audit-streams', { token: developer })])
      expect([answer.status, answer.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const plain = await create(ws.apiKey, { ...https, url: 'http://127.0.0.1:9/audit' });
    expect([plain.status, plain.body.error.code, plain.body.error.message]).toEqual([400, 'VALIDATION_ERROR', 'url: must use https']);
    const private10 = await create(ws.apiKey, { ...splunk, url: 'https://10.0.0.1/services/collector' });
    expect([private10.status, private10.body.error.message]).toEqual([
      400,
      expect.stringMatching(/^url: points to a blocked address: 10\.0\.0\.1/),
    ]);
  });

  it('keeps at most 10 streams per workspace: the 11th is LIMIT_EXCEEDED until one is deleted', async () => {
    const capped = await newWorkspace();
    const ids = [];
    for (let i = 0; i < 10; i++) {
      const answer = await create(capped.apiKey, datadog);
      expect(answer.status).toBe(201);
      ids.push(answer.body.data.id);
    }
    const eleventh = await create(capped.apiKey, datadog);
    expect([eleventh.status, eleventh.body.error.code]).toEqual([409, 'LIMIT_EXCEEDED']);
    await call('DELETE', `/api/v1/audit-streams/${ids[0]}`, { token: capped.apiKey });
    expect((await create(capped.apiKey, datadog)).status).toBe(201);
  });
});
