import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { ENTITY, keys } from '../../../shared/platform/store/keys.ts';
import { admin, call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { systemAuditEntry } from '../../../shared/audit/audit-entry.ts';
import { registerEndpoint, startReceiver, storedDelivery, waitFor } from '../../support/webhooks.ts';
import { workspaceWithEnvironment } from './support.ts';

/**
 * An endpoint's delivery log is GSI3, which copies only the keys and `eventType` (so an attempt's updates do not
 * rewrite it): its lists read each page's records from the table and filter their status there. Deliveries made
 * before GSI3 are only in GSI1; pausing, switching off and deleting an endpoint must still find them.
 */
const { doc, tableName, store } = localStore();
const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A delivery as the fan-out wrote them before the log moved to GSI3: GSI1 keys, no GSI3 keys. */
async function putLegacyDelivery(workspaceId: string, endpointId: string, index: number) {
  const legacy = storedDelivery(endpointId, index);
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.delivery(workspaceId, legacy.id),
        GSI1PK: `WHE#${endpointId}`,
        GSI1SK: legacy.id,
        type: ENTITY.delivery,
        workspaceId,
        ...legacy,
      },
    }),
  );
  return legacy;
}

/**
 * The two admin commands scan the whole table twice each; in a full run the table holds every integration test's
 * items, and on a loaded two-core machine that took past the default 30 s (1.6-1.9 s when this file runs alone).
 */
const ADMIN_SCAN_TIMEOUT_MS = 120_000;

/** Seven deliveries of one endpoint, oldest first; the odd ones have failed. */
async function seededLog() {
  const ws = await newWorkspace();
  const endpointId = newId('webhookEndpoint');
  const made = Array.from({ length: 7 }, (_, i) => storedDelivery(endpointId, i, i === 6 ? 'service.secret.delete' : undefined));
  for (const d of made) expect(await store.createDelivery(ws.workspaceId, d, Date.parse(d.createdAt))).toBe(true);
  for (const d of made.filter((_, i) => i % 2 === 1))
    expect(await store.failPending(ws.workspaceId, d.id, 'endpoint paused', d.createdAt)).toBeDefined();
  return { ws, endpointId, made, newestFirst: made.map((d) => d.id).reverse() };
}

/** Every page of an endpoint's log under `filter`, `limit` at a time. */
async function allPages(workspaceId: string, filter: Parameters<typeof store.listDeliveries>[1], limit: number) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listDeliveries(workspaceId, filter, { limit, cursor });
    pages.push(page.items.map((d) => d.id));
    expect(page.hasMore).toBe(page.nextCursor !== null);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

describe('the endpoint delivery log (GSI3)', () => {
  it("lists an endpoint's deliveries newest first with their current status, page by page, with exact hasMore", async () => {
    const { ws, endpointId, newestFirst } = await seededLog();
    const listed = await store.listDeliveries(ws.workspaceId, { endpointId }, { limit: 10 });
    expect(listed.items.map((d) => d.id)).toEqual(newestFirst);
    expect(listed.items.map((d) => d.status)).toEqual(['pending', 'failed', 'pending', 'failed', 'pending', 'failed', 'pending']);
    expect(listed).toMatchObject({ hasMore: false, nextCursor: null });
    // At the page size and one past it: exactly 7 fit in a page of 7; a page of 6 leaves one for the next.
    expect(await allPages(ws.workspaceId, { endpointId }, 7)).toEqual([newestFirst]);
    expect(await allPages(ws.workspaceId, { endpointId }, 6)).toEqual([newestFirst.slice(0, 6), newestFirst.slice(6)]);
    expect(await allPages(ws.workspaceId, { endpointId }, 3)).toEqual([
      newestFirst.slice(0, 3),
      newestFirst.slice(3, 6),
      newestFirst.slice(6),
    ]);
  });

  it('filters by status on the records (the index has none) and by event type on the index, across pages', async () => {
    const { ws, endpointId, newestFirst } = await seededLog();
    const failed = newestFirst.filter((_, i) => i % 2 === 1);
    expect((await allPages(ws.workspaceId, { endpointId, status: 'failed' }, 2)).flat()).toEqual(failed);
    expect(await allPages(ws.workspaceId, { endpointId, status: 'failed' }, 3)).toEqual([failed]);
    expect((await allPages(ws.workspaceId, { endpointId, status: 'pending' }, 1)).flat()).toEqual(
      newestFirst.filter((_, i) => i % 2 === 0),
    );
    expect(await allPages(ws.workspaceId, { endpointId, status: 'success' }, 5)).toEqual([[]]);
    expect(await allPages(ws.workspaceId, { endpointId, eventType: 'service.secret.delete' }, 5)).toEqual([[newestFirst[0]]]);
    expect(await allPages(ws.workspaceId, { endpointId, eventType: 'service.secret.delete', status: 'failed' }, 5)).toEqual([[]]);
  });

  it("never reads another workspace's record through the log, even under the same endpoint id", async () => {
    const { ws, endpointId, made } = await seededLog();
    const other = await newWorkspace();
    const stray = storedDelivery(endpointId, 30);
    expect(await store.createDelivery(other.workspaceId, stray, Date.parse(stray.createdAt))).toBe(true);
    const listed = await store.listDeliveries(ws.workspaceId, { endpointId }, { limit: 50 });
    expect(listed.items.map((d) => d.id).sort()).toEqual(made.map((d) => d.id).sort());
    // The delete is bounded to the caller's workspace too.
    await store.deleteEndpointDeliveries(ws.workspaceId, endpointId);
    expect((await store.listDeliveries(other.workspaceId, { endpointId }, { limit: 50 })).items.map((d) => d.id)).toEqual([stray.id]);
  });

  it('finds pending deliveries, and deletes the log, including deliveries made before GSI3 (only in GSI1)', async () => {
    const { ws, endpointId, made } = await seededLog();
    const legacy = await putLegacyDelivery(ws.workspaceId, endpointId, 40);
    const pending = made.filter((_, i) => i % 2 === 0).map((d) => d.id);
    expect((await store.pendingDeliveryIds(endpointId)).sort()).toEqual([...pending, legacy.id].sort());
    expect(await store.deleteEndpointDeliveries(ws.workspaceId, endpointId)).toBe(8);
    expect(await store.getDelivery(ws.workspaceId, legacy.id)).toBeUndefined();
    expect((await store.listDeliveries(ws.workspaceId, { endpointId }, { limit: 50 })).items).toEqual([]);
    expect(await store.pendingDeliveryIds(endpointId)).toEqual([]);
  });

  it(
    'lists deliveries made before GSI3 once `admin deliveries migrate-log` has moved their keys, and a second run moves none',
    async () => {
      const { ws, endpointId, newestFirst } = await seededLog();
      const legacy = await putLegacyDelivery(ws.workspaceId, endpointId, 50);
      const listed = async () => (await store.listDeliveries(ws.workspaceId, { endpointId }, { limit: 50 })).items.map((d) => d.id);
      expect(await listed()).toEqual(newestFirst);
      const first = await admin('deliveries', 'migrate-log');
      expect(first.moved).toBeGreaterThanOrEqual(1);
      expect(await listed()).toEqual([legacy.id, ...newestFirst]);
      const raw = await doc.send(new GetCommand({ TableName: tableName, Key: keys.delivery(ws.workspaceId, legacy.id) }));
      expect(raw.Item).toMatchObject({ GSI3PK: `WHE#${endpointId}`, GSI3SK: legacy.id });
      expect(raw.Item!.GSI1PK).toBeUndefined();
      // Only this file writes deliveries the old way, and its tests run one after another.
      expect((await admin('deliveries', 'migrate-log')).moved).toBe(0);
    },
    ADMIN_SCAN_TIMEOUT_MS,
  );

  it(
    "lists every failed delivery in its endpoint's failed list (GSI4), and `admin deliveries index-failed` adds those failed before it",
    async () => {
      const { ws, endpointId, made } = await seededLog();
      const failedList = async () => {
        const out = await doc.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'GSI4',
            KeyConditionExpression: 'GSI4PK = :pk',
            ExpressionAttributeValues: { ':pk': endpointId },
          }),
        );
        return (out.Items ?? []).map((item) => item.SK as string);
      };
      expect(await failedList()).toEqual(made.filter((_, i) => i % 2 === 1).map((d) => d.id));
      // A delivery that failed before the list existed: failed, without GSI4 keys.
      const old = { ...storedDelivery(endpointId, 20), status: 'failed' as const };
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.delivery(ws.workspaceId, old.id), type: ENTITY.delivery, workspaceId: ws.workspaceId, ...old },
        }),
      );
      expect(await failedList()).not.toContain(old.id);
      expect((await admin('deliveries', 'index-failed')).indexed).toBeGreaterThanOrEqual(1);
      expect(await failedList()).toContain(old.id);
      // Every failed delivery the service made is listed already: a second run lists none.
      expect((await admin('deliveries', 'index-failed')).indexed).toBe(0);
    },
    ADMIN_SCAN_TIMEOUT_MS,
  );

  it('a manual retry moves a delivery only from the status its caller read (the count it leaves), and only once', async () => {
    const { ws, made } = await seededLog();
    const failed = made[1]!;
    const audit = () => systemAuditEntry('acc_test', 'webhook_delivery.retry', failed.id, {}, Date.now());
    const retry = (status: 'success' | 'failed') =>
      store.retryNow(
        ws.workspaceId,
        { id: failed.id, endpointId: failed.endpointId, createdAt: failed.createdAt, status },
        `tok-${status}`,
        new Date().toISOString(),
        audit(),
      );
    expect(await retry('success')).toBe(false);
    expect(await retry('failed')).toBe(true);
    // Pending now: a concurrent retry that read it failed finds it moved on.
    expect(await retry('failed')).toBe(false);
    expect((await store.getDelivery(ws.workspaceId, failed.id))?.attemptToken).toBe('tok-failed');
  });
});

describe('delivery log API', () => {
  it('lists the workspace deliveries newest first with endpoint, status and event type filters', async () => {
    const { ws, write } = await workspaceWithEnvironment();
    const ok = await startReceiver();
    const bad = await startReceiver({ status: 404 });
    receivers.push(ok, bad);
    const a = await registerEndpoint(ws.apiKey, `${ok.origin}/a`, ['service.secret.create', 'service.secret.rotate']);
    const b = await registerEndpoint(ws.apiKey, `${bad.origin}/b`, ['service.secret.create']);
    await write('ONE');
    await write('ONE');
    await waitFor(
      async () => (await call('GET', '/api/v1/webhook-deliveries?status=success', { token: ws.apiKey })).body.data.length === 2,
    );
    const all = (await call('GET', '/api/v1/webhook-deliveries', { token: ws.apiKey })).body.data as {
      id: string;
      endpointId: string;
      eventType: string;
      attemptLog: unknown[];
    }[];
    expect(all).toHaveLength(3);
    expect(all.map((d) => d.id)).toEqual([...all.map((d) => d.id)].sort().reverse());
    expect(all.every((d) => Array.isArray(d.attemptLog))).toBe(true);
    const byEndpoint = await call('GET', `/api/v1/webhook-deliveries?endpointId=${b.id}`, { token: ws.apiKey });
    expect(byEndpoint.body.data.map((d: { endpointId: string }) => d.endpointId)).toEqual([b.id]);
    const rotations = await call('GET', '/api/v1/webhook-deliveries?eventType=service.secret.rotate', { token: ws.apiKey });
    expect(rotations.body.data).toHaveLength(1);
    expect(rotations.body.data[0].endpointId).toBe(a.id);
    const page = await call('GET', '/api/v1/webhook-deliveries?limit=2', { token: ws.apiKey });
    const next = await call('GET', `/api/v1/webhook-deliveries?limit=2&cursor=${encodeURIComponent(page.body.meta.page.nextCursor)}`, {
      token: ws.apiKey,
    });
    expect([...page.body.data, ...next.body.data].map((d: { id: string }) => d.id)).toEqual(all.map((d) => d.id));
    for (const query of ['limit=0', 'limit=201', 'status=done', 'endpointId=x', 'eventType=']) {
      expect((await call('GET', `/api/v1/webhook-deliveries?${query}`, { token: ws.apiKey })).status, query).toBe(400);
    }
  }, 30_000);
});
