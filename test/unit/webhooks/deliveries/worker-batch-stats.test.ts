import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../../shared/platform/ids.ts';
import { formatDeliveryMessage } from '../../../../shared/webhooks/deliveries/delivery-message.ts';
import { formatStatsRollupMessage } from '../../../../shared/webhooks/stats/stats-message.ts';
import { makeStatsRollup } from '../../../../shared/webhooks/stats/stats-rollup.ts';
import { makeWorkerBatch } from '../../../../shared/webhooks/deliveries/worker-batch.ts';
import { fakeCipher, fakeClock, fakeLogger, fakeMetrics, fakeQueue, sealedFor, T0 } from '../../support/fakes.ts';
import { answers, delivery, endpoint, memoryStore, SIGNING_SECRET } from '../pipeline-support.ts';
import { deliveryItem, rollupModel, WS as ROLLUP_WS } from '../stats-support.ts';

const WS = newId('workspace');
const IDS = [newId('delivery'), newId('delivery'), newId('delivery')];

/** The SQS record of a queued first attempt of `deliveryId`, received `receives` times. */
const record = (deliveryId: string, receives: number): SQSRecord =>
  ({
    messageId: `m-${deliveryId}`,
    body: formatDeliveryMessage({ workspaceId: WS, deliveryId, attemptToken: 'tok-1' }),
    attributes: { ApproximateReceiveCount: String(receives) },
  }) as unknown as SQSRecord;

describe('statistics: a worker batch handed over again', () => {
  it('counts each attempt once when SQS hands the same batch over again (its messages are then dropped)', async () => {
    // Prepare: three queued deliveries; the receiver takes the first two and fails the third (a retry is scheduled)
    const model = memoryStore({
      deliveries: IDS.map((id) => delivery({ id })),
      endpoints: [endpoint({ sealedSecret: sealedFor(SIGNING_SECRET, { workspaceId: WS, endpointId: 'we_01' }) })],
    });
    const sent: string[] = [];
    const batch = makeWorkerBatch({
      store: model.store,
      cipher: fakeCipher(),
      clock: fakeClock(T0),
      send: async (request) => (
        sent.push(request.headers['Service-Delivery-Id']!),
        request.headers['Service-Delivery-Id'] === IDS[2] ? answers.serverError : answers.ok
      ),
      enqueue: fakeQueue().enqueue,
      timeScale: 1,
      metrics: fakeMetrics(),
      log: fakeLogger(),
      recover: async () => undefined,
      rollUp: async () => undefined,
    });
    // Act: the batch, then the same batch again (as after a timeout of the invocation that ran it)
    const first = await batch(IDS.map((id) => record(id, 1)));
    const again = await batch(IDS.map((id) => record(id, 2)));
    // Assess: three sends and three counted changes, none of them twice
    expect([first, again]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(sent.sort()).toEqual([...IDS].sort());
    expect(model.stats).toHaveLength(3);
    expect(model.stats.filter((s) => s.change.succeeded === 1)).toHaveLength(2);
    expect(model.stats.filter((s) => s.change.failureAt !== undefined && s.change.failed === undefined)).toHaveLength(1);
    expect([...model.deliveries.values()].map((d) => d.attempts)).toEqual([1, 1, 1]);
  });

  it('counts each delivery once when SQS hands a batch holding a rollup message over again, the rollup run again with it', async () => {
    // Prepare: three deliveries of two endpoints in the bucket 09:40 to 09:42, and a worker batch whose rollup runs
    const at = (time: string) => `2026-03-02T${time}Z`;
    const deliveries = [
      deliveryItem('we_a', at('09:40:10.000'), 'success', [12]),
      deliveryItem('we_a', at('09:41:00.000'), 'failed', [15, 900]),
      deliveryItem('we_b', at('09:41:30.000'), 'success', [40]),
    ];
    const model = rollupModel(deliveries);
    const rollUp = makeStatsRollup({
      store: model.store,
      continueRollup: async () => undefined,
      clock: fakeClock(Date.parse(at('09:43:00.000'))),
      log: fakeLogger(),
    });
    const body = formatStatsRollupMessage({ workspaceId: ROLLUP_WS, rollupUntil: Date.parse(at('09:42:00.000')) });
    const batch = makeWorkerBatch({
      store: memoryStore({ deliveries: [], endpoints: [] }).store,
      cipher: fakeCipher(),
      clock: fakeClock(T0),
      send: async () => answers.ok,
      enqueue: fakeQueue().enqueue,
      timeScale: 1,
      metrics: fakeMetrics(),
      log: fakeLogger(),
      recover: async () => undefined,
      rollUp,
    });
    const rollupRecord = (receives: number) =>
      ({ messageId: 'm-rollup', body, attributes: { ApproximateReceiveCount: String(receives) } }) as unknown as SQSRecord;
    // Act: the batch, then the same batch again
    const first = await batch([rollupRecord(1)]);
    const counted = [model.counts('bucket', 'we_a', at('09:40:00.000')), model.counts('bucket', 'we_b', at('09:40:00.000'))];
    const again = await batch([rollupRecord(2)]);
    // Assess: the same counts after both, each delivery once
    expect([first, again]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(counted).toEqual([
      { created: 2, succeeded: 1, failed: 1 },
      { created: 1, succeeded: 1, failed: 0 },
    ]);
    expect([model.counts('bucket', 'we_a', at('09:40:00.000')), model.counts('bucket', 'we_b', at('09:40:00.000'))]).toEqual(counted);
    expect(model.watermark()?.rolledTo).toBe(Date.parse(at('09:42:00.000')));
  });
});
