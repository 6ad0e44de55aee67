import { afterAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../../../shared/platform/clock.ts';
import { logger } from '../../../shared/platform/logger.ts';
import { systemAuditEntry } from '../../../shared/audit/audit-entry.ts';
import { iso } from '../../../shared/platform/clock.ts';
import { deliveryIdSpan, type Recovery } from '../../../shared/webhooks/recovery/recovery-store.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import type { DeliveryMessage, RecoveryMessage } from '../../../shared/webhooks/deliveries/delivery-message.ts';
import { makeRecoveryRunner, type RecoveryDeps } from '../../../shared/webhooks/recovery/recovery-runner.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { failedDeliveries, registerEndpoint, startReceiver } from '../../support/webhooks.ts';

/*
 * The recovery runner on the local stack's table, step by step, with the queue in the test's hands: a step's message
 * seen twice, a runner that dies mid-step, a paused endpoint. (webhook-operations.test.ts runs it through the API
 * and the stack's own worker.)
 */

const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** An endpoint with `count` failed deliveries an hour old, and a recovery of the last two hours, recorded but not started. */
async function recoverable(count: number) {
  const ws = await newWorkspace();
  const receiver = await startReceiver({ status: 204 });
  receivers.push(receiver);
  const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, ['service.secret.delete']);
  const failed = await failedDeliveries(ws.workspaceId, endpoint.id, count);
  const now = Date.now();
  const audit = systemAuditEntry('acc_test', 'webhook_endpoint.recover', endpoint.id, {}, now);
  const recovery: Recovery = {
    id: audit.id,
    endpointId: endpoint.id,
    ...deliveryIdSpan(now - 2 * 3_600_000, now),
    since: iso(now - 2 * 3_600_000),
    until: iso(now),
    expected: count,
    queued: 0,
    cursor: null,
    step: 0,
    status: 'running',
    createdAt: iso(now),
    updatedAt: iso(now),
  };
  const { store } = localStore();
  await store.startRecovery(ws.workspaceId, recovery, audit);
  return { ws, endpoint, failed, recovery, first: { workspaceId: ws.workspaceId, recoveryId: recovery.id, step: 0 } };
}

/** A runner over the local table whose queue is two lists; `store` overrides some store methods. */
function runner(overrides: Partial<RecoveryDeps['store']> = {}, options: { pageSize?: number; budgetMs?: number } = {}) {
  const sent: DeliveryMessage[] = [];
  const next: RecoveryMessage[] = [];
  const uncounted: number[] = [];
  const run = makeRecoveryRunner({
    store: { ...localStore().store, ...overrides },
    uncountFailed: async (_ws, _endpoint, _createdAt, count) => void uncounted.push(count),
    enqueueAll: async (messages) => (sent.push(...messages), []),
    continueRecovery: async (message) => void next.push(message),
    clock: systemClock,
    metrics: { recovered: () => undefined },
    log: logger,
    pageSize: options.pageSize ?? 50,
    budgetMs: options.budgetMs ?? 0,
  });
  return { run, sent, next, uncounted };
}

/** Runs `message` and every next step it leads to until none is left; answers the outcomes. */
async function drain(r: ReturnType<typeof runner>, message: RecoveryMessage): Promise<string[]> {
  const outcomes: string[] = [];
  let current: RecoveryMessage | undefined = message;
  while (current) {
    outcomes.push(await r.run(current));
    current = r.next.shift();
  }
  return outcomes;
}

const recoveryItem = async (workspaceId: string, id: string) =>
  (await localStore().doc.send(new GetCommand({ TableName: localStore().tableName, Key: keys.deliveryRecovery(workspaceId, id) }))).Item!;

describe('recovery runner', () => {
  it('goes page by page, one step per message, queueing each failed delivery once, then is done', async () => {
    const { ws, failed, first } = await recoverable(230);
    const r = runner();
    const outcomes = await drain(r, first);
    // 230 at 50 a page: five pages, each its own step (budget 0), the last one done.
    expect(outcomes).toEqual(['continued', 'continued', 'continued', 'continued', 'done']);
    expect(r.sent.map((m) => m.deliveryId).sort()).toEqual(failed.map((d) => d.id).sort());
    expect(r.uncounted.reduce((a, b) => a + b, 0)).toBe(230);
    expect(await recoveryItem(ws.workspaceId, first.recoveryId)).toMatchObject({
      status: 'done',
      queued: 230,
      step: 5,
      cursor: failed.at(-1)!.id,
    });
    expect((await recoveryItem(ws.workspaceId, first.recoveryId)).GSI2PK).toBeUndefined();
  });

  it("a step's message seen twice at once queues nothing twice: one runner moves it on, the other stops", async () => {
    const { failed, first } = await recoverable(120);
    const [a, b] = [runner(), runner()];
    const outcomes = await Promise.all([a.run(first), b.run(first)]);
    expect(outcomes.sort()).toEqual(['continued', 'dropped']);
    // The loser may read its page after the winner moved some of it: it then takes deliveries of the next page, which
    // that page skips. Either way none is queued twice.
    const ids = [...a.sent, ...b.sent].map((m) => m.deliveryId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(50);
    // The step after it runs once, from the winner's message; the loser's stale message (seen again) does nothing.
    const rest = runner();
    expect(await rest.run(first)).toBe('dropped');
    await drain(rest, [...a.next, ...b.next][0]!);
    const all = [...ids, ...rest.sent.map((m) => m.deliveryId)];
    expect(new Set(all).size).toBe(120);
    expect(all).toHaveLength(120);
    expect(new Set(all)).toEqual(new Set(failed.map((d) => d.id)));
  });

  it('a runner that dies after queueing a page and before moving on: the message again finds nothing left there', async () => {
    const { ws, failed, first } = await recoverable(80);
    const dying = runner({
      advanceRecovery: async () => {
        throw new Error('killed');
      },
    });
    await expect(dying.run(first)).rejects.toThrow('killed');
    expect(dying.sent).toHaveLength(50);
    const again = runner();
    expect(await drain(again, first)).toEqual(['done']);
    const all = [...dying.sent, ...again.sent].map((m) => m.deliveryId);
    expect(all.sort()).toEqual(failed.map((d) => d.id).sort());
    // The recovery counts what it queued after the crash; the answer's count (expected) stays what was asked.
    expect(await recoveryItem(ws.workspaceId, first.recoveryId)).toMatchObject({ status: 'done', queued: 30, expected: 80 });
  });

  it('runs pages within one message until its time budget, then hands on', async () => {
    const { first } = await recoverable(150);
    const r = runner({}, { pageSize: 50, budgetMs: 60_000 });
    expect(await r.run(first)).toBe('done');
    expect(r.next).toEqual([]);
    expect(r.sent).toHaveLength(150);
  });

  it('stops when the endpoint was paused meanwhile, leaving the rest failed', async () => {
    const { ws, endpoint, first } = await recoverable(70);
    const r = runner();
    expect(await r.run(first)).toBe('continued');
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    expect(await r.run(r.next.shift()!)).toBe('stopped');
    expect(r.sent).toHaveLength(50);
    expect(await recoveryItem(ws.workspaceId, first.recoveryId)).toMatchObject({ status: 'stopped', queued: 50 });
  });
});
