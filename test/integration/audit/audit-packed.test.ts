import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patterns } from '../../../shared/platform/store/keys.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';

interface Entry {
  id: string;
  action: string;
  target: string;
  metadata: Record<string, unknown>;
}

/**
 * A reveal that resolves references audits the referencing secret and each target in one item (shared/audit/audit-packing.ts):
 * the log, its filters, its pages and the webhook fan-out still see one entry per target.
 */
describe('the audit entries of a reveal with references', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let envId: string;
  let referencing: string;
  const targets: string[] = [];
  let receiver: HttpsReceiver;
  const get = async (query: string) => (await call('GET', `/api/v1/audit?${query}`, { token: ws.apiKey })).body;

  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'packed', environment: 'prod' })).environment.id;
    for (const key of ['T1', 'T2', 'T3', 'T4']) {
      const answer = await call('PUT', `/api/v1/environments/${envId}/secrets`, {
        token: ws.apiKey,
        body: { key, value: key.toLowerCase() },
      });
      targets.push(answer.body.data.id);
    }
    const value = '${T1}-${T2}-${T3}-${T4}';
    referencing = (await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'ALL', value } })).body.data
      .id;
    receiver = await startReceiver({ status: 204 });
    await registerEndpoint(ws.apiKey, `https://localhost:${receiver.port}/reveals`, ['service.secret.reveal']);
    const revealed = await call('POST', `/api/v1/secrets/${referencing}/reveal`, { token: ws.apiKey });
    expect(revealed.body.data.value).toBe('t1-t2-t3-t4');
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('answers one entry per secret revealed, the targets with via, stored as one item', async () => {
    const reveals = (await get('action=secret.reveal')).data as Entry[];
    expect(reveals.map((entry) => entry.target)).toEqual([referencing, ...targets]);
    expect(new Set(reveals.map((entry) => entry.id)).size).toBe(5);
    for (const entry of reveals.slice(1)) expect(entry.metadata).toMatchObject({ via: referencing, credentialKind: 'api_key', version: 1 });
    expect(reveals[0]!.metadata.via).toBeUndefined();
    const { doc, tableName } = localStore();
    const { pk } = patterns.auditByWorkspace(ws.workspaceId);
    const items = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        FilterExpression: '#action = :reveal',
        ExpressionAttributeNames: { '#action': 'action' },
        ExpressionAttributeValues: { ':pk': pk, ':reveal': 'secret.reveal' },
      }),
    );
    expect(items.Items).toHaveLength(1);
    expect(items.Items![0]!.packedTargets).toEqual(targets);
  });

  it("finds a packed entry by its target, and only it of its item's", async () => {
    const found = (await get(`target=${targets[2]}&action=secret.reveal`)).data as Entry[];
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ target: targets[2], metadata: { via: referencing, key: 'T3' } });
    expect(((await get(`target=${targets[2]}`)).data as Entry[]).map((entry) => entry.action)).toEqual(['secret.reveal', 'secret.create']);
  });

  it('pages by entries, resuming inside an item, while newer entries arrive', async () => {
    const whole = (await get('action=secret.reveal')).data as Entry[];
    const first = await get('action=secret.reveal&limit=2');
    expect(first.data.map((entry: Entry) => entry.id)).toEqual(whole.slice(0, 2).map((entry) => entry.id));
    expect(first.meta.page.hasMore).toBe(true);
    // A newer entry comes first in the log now; the cursor still resumes inside the item it ended in.
    await call('POST', `/api/v1/secrets/${targets[0]}/reveal`, { token: ws.apiKey });
    const second = await get(`action=secret.reveal&limit=2&cursor=${encodeURIComponent(first.meta.page.nextCursor)}`);
    expect(second.data.map((entry: Entry) => entry.id)).toEqual(whole.slice(2, 4).map((entry) => entry.id));
    const third = await get(`action=secret.reveal&limit=2&cursor=${encodeURIComponent(second.meta.page.nextCursor)}`);
    expect(third.data.map((entry: Entry) => entry.id)).toEqual(whole.slice(4).map((entry) => entry.id));
    expect(third.meta.page).toMatchObject({ hasMore: false, nextCursor: null });
    // A page that ends exactly with an item's last entry resumes after the item.
    const byTarget = await get(`limit=1&target=${targets[1]}`);
    expect(byTarget.data[0].action).toBe('secret.reveal');
    const after = await get(`limit=1&target=${targets[1]}&cursor=${encodeURIComponent(byTarget.meta.page.nextCursor)}`);
    expect(after.data.map((entry: Entry) => entry.action)).toEqual(['secret.create']);
  });

  it('refuses a cursor into an item that was altered or made for another list', async () => {
    const first = await get('action=secret.reveal&limit=2');
    const cursor: string = first.meta.page.nextCursor;
    expect(cursor.startsWith('~')).toBe(true);
    const altered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'B' : 'A'}${cursor.slice(-1)}`;
    for (const query of [
      `action=secret.reveal&limit=2&cursor=${encodeURIComponent(altered)}`,
      `limit=2&cursor=${encodeURIComponent(cursor)}`,
    ]) {
      const answer = await call('GET', `/api/v1/audit?${query}`, { token: ws.apiKey });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('makes one service.secret.reveal event per entry', async () => {
    // The reveal with references (5 entries) and the later reveal of T1 (1 entry).
    await waitFor(async () => receiver.requests.length >= 6 || undefined, 30_000, '6 reveal deliveries');
    const events = receiver.requests.map((request) => JSON.parse(request.body) as { id: string; data: { secretId: string } });
    expect(events).toHaveLength(6);
    expect(new Set(events.map((event) => event.id)).size).toBe(6);
    expect(events.map((event) => event.data.secretId).sort()).toEqual([referencing, ...targets, targets[0]!].sort());
  });
});
