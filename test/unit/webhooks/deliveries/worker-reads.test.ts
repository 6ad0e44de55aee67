import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../../shared/platform/ids.ts';
import { formatDeliveryMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import { makeWorkerBatch } from '../../../../shared/webhooks/deliveries/worker-batch.ts';
import { QUERY_ENDPOINTS_FROM } from '../../../../shared/webhooks/deliveries/worker-reads.ts';
import { fakeCipher, fakeClock, fakeLogger, fakeMetrics, fakeQueue, sealedFor, T0 } from '../../support/fakes.ts';
import { answers, delivery, endpoint, memoryStore, SIGNING_SECRET } from '../pipeline-support.ts';

const WS = newId('workspace');

/** A batch of one message per delivery, the deliveries spread over `endpoints` endpoints (the first `missing` of them deleted). */
function harness(deliveries: number, endpoints: number, missing = 0) {
  const ids = Array.from({ length: deliveries }, () => newId('delivery'));
  const endpointIds = Array.from({ length: endpoints }, (_, i) => `we_0${i}`);
  const model = memoryStore({
    deliveries: ids.map((id, i) => delivery({ id, endpointId: endpointIds[i % endpoints]! })),
    endpoints: endpointIds
      .slice(missing)
      .map((id) => endpoint({ id, sealedSecret: sealedFor(SIGNING_SECRET, { workspaceId: WS, endpointId: id }) })),
  });
  const endpointReads: string[] = [];
  const getEndpoint = model.store.getEndpoint;
  model.store.getEndpoint = (ws, id) => (endpointReads.push(id), getEndpoint(ws, id));
  const batch = makeWorkerBatch({
    store: model.store,
    cipher: fakeCipher(),
    clock: fakeClock(T0),
    send: async () => answers.ok,
    enqueue: fakeQueue().enqueue,
    timeScale: 1,
    metrics: fakeMetrics(),
    log: fakeLogger(),
    recover: async () => undefined,
    rollUp: async () => undefined,
  });
  const records = ids.map(
    (id) =>
      ({ messageId: `m-${id}`, body: formatDeliveryMessage({ workspaceId: WS, deliveryId: id, attemptToken: 'tok-1' }) }) as SQSRecord,
  );
  return { model, batch, records, endpointReads };
}

describe('worker invocation: the reads its attempts start with', () => {
  it(`reads a workspace's endpoints with one Query when ${QUERY_ENDPOINTS_FROM} or more of them are in the batch`, async () => {
    const h = harness(10, 10);
    expect(await h.batch(h.records)).toEqual({ batchItemFailures: [] });
    expect(h.model.calls.filter((c) => c === 'listEndpoints')).toHaveLength(1);
    expect(h.endpointReads).toEqual([]);
    expect([...h.model.deliveries.values()].every((d) => d.status === 'success')).toBe(true);
  });

  it('reads fewer endpoints one by one, each once however many of its deliveries the batch holds', async () => {
    const h = harness(8, QUERY_ENDPOINTS_FROM - 1);
    expect(await h.batch(h.records)).toEqual({ batchItemFailures: [] });
    expect(h.model.calls).not.toContain('listEndpoints');
    expect(h.endpointReads.sort()).toEqual(['we_00', 'we_01', 'we_02', 'we_03']);
  });

  it('an endpoint the Query does not find was deleted: its delivery fails without an attempt', async () => {
    const h = harness(6, 6, 1);
    await h.batch(h.records);
    const statuses = [...h.model.deliveries.values()].map((d) => [d.endpointId, d.status, d.lastError]);
    expect(statuses.filter(([endpoint]) => endpoint === 'we_00')).toEqual([['we_00', 'failed', 'endpoint deleted']]);
    expect(statuses.filter(([, status]) => status === 'success')).toHaveLength(5);
  });
});
