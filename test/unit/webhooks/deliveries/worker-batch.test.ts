import type { SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import {
  formatDeliveryMessage,
  formatRecoveryMessage,
  type RecoveryMessage,
} from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import { sendWebhook } from '../../../../shared/webhooks/deliveries/sender.ts';
import { parseAllowedCidrs } from '../../../../shared/net/ssrf.ts';
import { makeWorkerBatch } from '../../../../shared/webhooks/deliveries/worker-batch.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../../support/https-receiver.ts';
import { fakeCipher, fakeClock, fakeLogger, fakeMetrics, fakeQueue, sealedFor, T0 } from '../../support/fakes.ts';
import { newId } from '../../../../shared/platform/ids.ts';
import { delivery, endpoint, memoryStore, SIGNING_SECRET } from '../pipeline-support.ts';

const LOOPBACK = parseAllowedCidrs('127.0.0.0/8');
// Queue messages are read strictly, so these are well-formed ids (the in-memory model ignores the workspace).
const WS = newId('workspace');
const [D1, D2] = [newId('delivery'), newId('delivery')] as [string, string];
let receiver: HttpsReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** The SQS record of a queued attempt of `deliveryId` (or `body` as is). */
const record = (deliveryId: string, body?: string): SQSRecord =>
  ({
    messageId: `m-${deliveryId}`,
    body: body ?? formatDeliveryMessage({ workspaceId: WS, deliveryId, attemptToken: 'tok-1' }),
  }) as SQSRecord;

/** A worker invocation over the in-memory model, sending for real to `url` with loopback allowed. */
function batchHarness(url: string, deliveryIds: string[]) {
  const model = memoryStore({
    deliveries: deliveryIds.map((id) => delivery({ id })),
    endpoints: [endpoint({ url, sealedSecret: sealedFor(SIGNING_SECRET, { workspaceId: WS, endpointId: 'we_01' }) })],
  });
  const recovered: RecoveryMessage[] = [];
  const batch = makeWorkerBatch({
    store: model.store,
    cipher: fakeCipher(),
    clock: fakeClock(T0),
    send: (request, connections) => sendWebhook({ ...request, allow: LOOPBACK, connections }),
    enqueue: fakeQueue().enqueue,
    timeScale: 1,
    metrics: fakeMetrics(),
    log: fakeLogger(),
    recover: async (message) => void recovered.push(message),
    rollUp: async () => undefined,
  });
  return { ...model, batch, recovered };
}

async function eventually(probe: () => boolean, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!probe() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return probe();
}

describe('worker invocation: connections', () => {
  it('the attempts of one invocation to one endpoint use one TLS connection, closed before the invocation ends', async () => {
    // Prepare: two queued deliveries to the same endpoint in one batch.
    receiver = await startHttpsReceiver({ status: 204 });
    const h = batchHarness(`${receiver.origin}/hook`, [D1, D2]);

    // Act
    const answer = await h.batch([record(D1), record(D2)]);

    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(receiver.requests.map((r) => r.headers['service-delivery-id']).sort()).toEqual([D1, D2].sort());
    expect(receiver.connections()).toBe(1);
    expect(await eventually(() => receiver!.openConnections() === 0)).toBe(true);
    expect([...h.deliveries.values()].map((d) => d.status)).toEqual(['success', 'success']);
  });

  it('the next invocation opens a connection of its own (nothing carried over a freeze)', async () => {
    receiver = await startHttpsReceiver({ status: 204 });
    const h = batchHarness(`${receiver.origin}/hook`, [D1, D2]);
    await h.batch([record(D1)]);
    await h.batch([record(D2)]);
    expect(receiver.connections()).toBe(2);
    expect(await eventually(() => receiver!.openConnections() === 0)).toBe(true);
  });

  it('an unreadable message is reported for SQS to retry, beside attempts that went through', async () => {
    receiver = await startHttpsReceiver({ status: 204 });
    const h = batchHarness(`${receiver.origin}/hook`, [D1]);
    const answer = await h.batch([record(D1), { ...record(newId('delivery'), '{"not":"a message"}'), messageId: 'bad' }]);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(receiver.requests).toHaveLength(1);
  });

  it("a recovery step's message goes to the recovery runner, beside attempts in the same batch", async () => {
    receiver = await startHttpsReceiver({ status: 204 });
    const h = batchHarness(`${receiver.origin}/hook`, [D1]);
    const step = { workspaceId: WS, recoveryId: newId('audit'), step: 3 };
    const answer = await h.batch([record(D1), { ...record(D2, formatRecoveryMessage(step)), messageId: 'recovery' }]);
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(h.recovered).toEqual([step]);
    expect(receiver.requests).toHaveLength(1);
  });
});
