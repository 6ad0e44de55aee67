import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthChange, makeStreamHealthStore } from '../../../shared/audit-streams/delivery/stream-health.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { startReceiver, waitFor } from '../../support/webhooks.ts';

/**
 * The audit stream worker's health writes against DynamoDB Local (decisions.md v1.4, "Audit streams and tamper
 * evidence"): the expressions as DynamoDB checks them, a failure window that survives a failure and restarts after
 * PATCH `active`, a disabling that lands once with its audit entry and counts as a revision. The streams are made
 * and changed through the API, as an admin does; the test plays the worker's part with the worker's own store.
 */

const { doc, tableName } = localStore();
const health = makeStreamHealthStore({ doc, tableName });
const failure = { ok: false, statusCode: 500, reason: 'the receiver answered 500' } as const;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let receiver: HttpsReceiver;

const storedItem = async (id: string) =>
  (await doc.send(new GetCommand({ TableName: tableName, Key: keys.auditStream(ws.workspaceId, id), ConsistentRead: true }))).Item!;

/**
 * An https stream made through the API, pointed at a receiver that takes everything. The stack's own worker delivers
 * the stream's entries (its creation, a PATCH) too: `settled` waits until it has, so its writes come before the test's.
 */
async function newStream(): Promise<string> {
  const made = await call('POST', '/api/v1/audit-streams', { token: ws.apiKey, body: { type: 'https', url: `${receiver.origin}/in` } });
  expect(made.status).toBe(201);
  const id = (made.body.data as { id: string }).id;
  await settled(id);
  return id;
}

/** Waits until the stack's worker has delivered the stream's latest entry (delivered, no error left). */
const settled = (id: string) =>
  waitFor(
    async () => {
      const stream = (await call('GET', `/api/v1/audit-streams/${id}`, { token: ws.apiKey })).body.data;
      return stream.lastDeliveredAt !== null && stream.lastError === null;
    },
    30_000,
    'the worker to deliver the stream entry',
  );

/** What the worker writes for `result` at `now` on the stream as it is stored now. */
async function outcome(id: string, result: Parameters<typeof healthChange>[1], now: number) {
  const stream = (await health.getStream(ws.workspaceId, id))!;
  const change = healthChange(stream, result, now, 1);
  return change && health.record(ws.workspaceId, id, change);
}

beforeAll(async () => {
  ws = await newWorkspace();
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('audit stream health (DynamoDB Local)', () => {
  it('keeps the window across failures, clears it on a success, and answers it read-only', async () => {
    const id = await newStream();
    const t0 = Date.now();

    await outcome(id, failure, t0);
    await outcome(id, { ...failure, statusCode: 503 }, t0 + 1000);
    const failing = await storedItem(id);
    await outcome(id, { ok: true }, t0 + 2000);
    const recovered = await storedItem(id);
    const answer = await call('GET', `/api/v1/audit-streams/${id}`, { token: ws.apiKey });

    expect(failing).toMatchObject({ failingSince: new Date(t0).toISOString(), lastError: { statusCode: 503 } });
    expect(recovered).not.toHaveProperty('failingSince');
    expect(recovered).not.toHaveProperty('lastError');
    expect(answer.body.data).toMatchObject({ failingSince: null, lastError: null, lastDeliveredAt: new Date(t0 + 2000).toISOString() });
  });

  it('disables a stream failing for 3 days once, with its system audit entry; PATCH active starts a new window', async () => {
    // Prepare: failing for 3 days, as the worker would have recorded it
    const id = await newStream();
    const threeDays = 3 * 24 * 3_600_000;
    const t0 = Date.now();
    expect(
      await health.record(ws.workspaceId, id, {
        kind: 'failed',
        at: new Date(t0 - threeDays).toISOString(),
        lastError: { statusCode: 500, reason: 'x', at: new Date(t0 - threeDays).toISOString() },
      }),
    ).toBe(true);

    // Act: two deliveries fail after the window; then an admin enables the stream, and it fails again
    const first = await outcome(id, failure, t0);
    const stale = (await health.getStream(ws.workspaceId, id))!;
    const second = await health.record(ws.workspaceId, id, healthChange({ ...stale, status: 'active' }, failure, t0 + 1, 1)!);
    const disabled = await storedItem(id);
    const enabled = await call('PATCH', `/api/v1/audit-streams/${id}`, { token: ws.apiKey, body: { status: 'active' } });
    await settled(id);
    await outcome(id, failure, t0 + 2000);

    // Assess
    expect([first, second]).toEqual([true, false]);
    expect(disabled).toMatchObject({ status: 'disabled', revision: 2 });
    expect(enabled.status).toBe(200);
    expect(await storedItem(id)).toMatchObject({ status: 'active', failingSince: new Date(t0 + 2000).toISOString() });
    const audit = await call('GET', `/api/v1/audit?action=audit_stream.update&limit=100`, { token: ws.apiKey });
    const updates = (audit.body.data as { actorSub: string; target: string; metadata: Record<string, unknown> }[]).filter(
      (e) => e.actorSub === 'system' && e.target === id,
    );
    expect(updates.map((e) => [e.metadata.status, e.metadata.reason])).toEqual([['disabled', 'failing']]);
  });
});
