import { afterAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { deliveriesOf, failedDeliveries, waitFor } from '../../support/webhooks.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { auditOf, endpointWithReceiver, machineToken } from './support.ts';

const receivers: HttpsReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});
const setup = (behaviour: Parameters<typeof endpointWithReceiver>[1] = {}) => endpointWithReceiver(receivers, behaviour);

/** Failed deliveries the recovery test recovers. */
const RECOVERED = 300;

describe('recovery of failed deliveries', () => {
  it('queues every failed delivery of the span again: each one succeeds once, same id, its attempt log continued', async () => {
    const { ws, receiver, endpoint } = await setup({ status: 204 });
    // Outside the span: an older failure stays failed.
    const [older] = await failedDeliveries(ws.workspaceId, endpoint.id, 1, 3 * 3_600_000);
    // Three pages of the recovery's 100 (its 1,000-delivery run is the bench's: BENCH_ONLY=webhook-ops).
    const failed = await failedDeliveries(ws.workspaceId, endpoint.id, RECOVERED);
    const since = new Date(Date.now() - 2 * 3_600_000).toISOString();

    const answer = await call('POST', `/api/v1/webhooks/${endpoint.id}/recover`, { token: ws.apiKey, body: { since } });

    expect(answer.status).toBe(202);
    expect(answer.body.data).toEqual({ queued: RECOVERED });
    await waitFor(
      async () => new Set(receiver.requests.map((r) => r.headers['service-delivery-id'])).size >= RECOVERED,
      120_000,
      'every recovered delivery',
    );
    const ids = receiver.requests.map((r) => r.headers['service-delivery-id'] as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(failed.map((d) => d.id)));
    expect(new Set(receiver.requests.map((r) => r.headers['service-delivery-attempt']))).toEqual(new Set(['7']));
    const { doc, tableName } = localStore();
    const read = async (id: string) =>
      (await doc.send(new GetCommand({ TableName: tableName, Key: keys.delivery(ws.workspaceId, id) }))).Item!;
    await waitFor(async () => (await read(failed.at(-1)!.id)).status === 'success', 20_000, 'the last attempt recorded');
    for (const delivery of [failed[0]!, failed[RECOVERED / 2]!, failed.at(-1)!]) {
      const item = await read(delivery.id);
      expect(item).toMatchObject({ status: 'success', attempts: 7, statusCode: 204 });
      expect(item.attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(item.GSI4PK).toBeUndefined();
    }
    expect((await read(older!.id)).status).toBe('failed');
    const [entry] = await auditOf(ws.apiKey, 'webhook_endpoint.recover');
    expect(entry).toMatchObject({ target: endpoint.id, metadata: { since, queued: RECOVERED, until: expect.any(String) } });
    const recovery = await waitFor(
      async () => {
        const item = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.deliveryRecovery(ws.workspaceId, entry!.id) }))).Item;
        return item?.status === 'done' ? item : undefined;
      },
      20_000,
      'the recovery to finish',
    );
    expect(recovery).toMatchObject({ queued: RECOVERED, expected: RECOVERED });
    expect(recovery.GSI2PK).toBeUndefined();
    // Nothing is left to recover: a second call queues none.
    expect((await call('POST', `/api/v1/webhooks/${endpoint.id}/recover`, { token: ws.apiKey, body: { since } })).body.data).toEqual({
      queued: 0,
    });
  }, 180_000);

  it('finds a delivery that failed all its attempts through the pipeline, and its seventh attempt succeeds', async () => {
    const { ws, receiver, endpoint } = await setup({ status: 503 });
    const ping = (await call('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token: ws.apiKey })).body.data;
    // Six attempts, retries scaled down to milliseconds but for the last (12 h scaled: about 4 s).
    await waitFor(
      async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.id === ping.id && d.status === 'failed'),
      30_000,
      'the delivery to fail',
    );
    receiver.respond({ status: 204 });
    const answer = await call('POST', `/api/v1/webhooks/${endpoint.id}/recover`, {
      token: ws.apiKey,
      body: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(answer.body.data).toEqual({ queued: 1 });
    const done = await waitFor(
      async () => (await deliveriesOf(ws.apiKey, endpoint.id)).find((d) => d.id === ping.id && d.status === 'success'),
      20_000,
      'the recovered attempt',
    );
    expect(done.attempts).toBe(7);
    expect(done.attemptLog.map((a) => a.statusCode)).toEqual([503, 503, 503, 503, 503, 503, 204]);
    expect(receiver.requests.at(-1)!.headers['service-delivery-attempt']).toBe('7');
  }, 60_000);

  it('checks the span: since at most 14 days ago, nothing in the future, until not before since', async () => {
    const { ws, endpoint } = await setup();
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const day = 86_400_000;
    const recover = (body: unknown) => call('POST', `/api/v1/webhooks/${endpoint.id}/recover`, { token: ws.apiKey, body });
    expect((await recover({ since: ago(14 * day - 60_000) })).status).toBe(202);
    expect((await recover({ since: ago(day), until: ago(day) })).status).toBe(202);
    const refusals: [unknown, string][] = [
      [{ since: ago(14 * day + 60_000) }, 'since'],
      [{ since: ago(-60_000) }, 'since'],
      [{ since: ago(day), until: ago(-60_000) }, 'until'],
      [{ since: ago(day), until: ago(2 * day) }, 'until'],
      [{ since: 'yesterday' }, 'since'],
      [{}, 'since'],
      [{ since: ago(day), extra: 1 }, 'extra'],
    ];
    for (const [body, field] of refusals) {
      const answer = await recover(body);
      expect([answer.status, answer.body.error.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_ERROR']);
      expect(answer.body.error.message).toContain(field);
    }
  });

  it("refuses a disabled endpoint, another workspace's, and a machine token", async () => {
    const { ws, endpoint } = await setup();
    const body = { since: new Date(Date.now() - 3_600_000).toISOString() };
    await call('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token: ws.apiKey, body: { enabled: false } });
    const disabled = await call('POST', `/api/v1/webhooks/${endpoint.id}/recover`, { token: ws.apiKey, body });
    expect([disabled.status, disabled.body.error.code]).toEqual([409, 'ENDPOINT_DISABLED']);
    const other = await newWorkspace();
    expect((await call('POST', `/api/v1/webhooks/${endpoint.id}/recover`, { token: other.apiKey, body })).status).toBe(404);
    const machine = await call('POST', `/api/v1/webhooks/${endpoint.id}/recover`, { token: await machineToken(ws.apiKey), body });
    expect([machine.status, machine.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });
});
