import { observeInvocations, type InvocationEvent } from '../bin/local/instrumentation.ts';
import { startHttpsReceiver } from '../test/support/https-receiver.ts';
import type { makeCallRecorder } from './calls.ts';
import { request, type Api } from './load.ts';
import { costPerMillion, perUnit } from './prices.ts';
import { quantile, round2 } from './stats.ts';
import { measureRollupShare, REFERENCE_DELIVERIES_PER_DAY } from './delivery-stats.ts';
import { LATE_AFTER_MS, ROLLUP_SAFETY_MS, STATS_BUCKET_MS } from '../shared/webhooks/stats/delivery-stats-store.ts';

/** Deletes every endpoint of the workspace, then registers one per path on `origin` for `events`. */
async function replaceEndpoints(api: Api, origin: string, paths: readonly string[], events: readonly string[]): Promise<void> {
  const list = await request(api, 'GET', '/api/v1/webhooks?limit=50');
  for (const endpoint of list.data) await request(api, 'DELETE', `/api/v1/webhooks/${endpoint.id}`);
  for (const path of paths) await request(api, 'POST', '/api/v1/webhooks', { url: `${origin}${path}`, events }, 201);
}

/** Deletes every endpoint of the workspace: the phases after the webhooks' measure a stack without subscribers. */
export function removeEndpoints(api: Api): Promise<void> {
  return replaceEndpoints(api, '', [], []);
}

/**
 * Webhook pipeline timings on the local stack: write → receiver arrival (p50, p95) for one endpoint, and
 * deliveries per second through stream → fan-out → queue → worker to one fast HTTPS receiver with 20 endpoints,
 * and how many TLS connections those deliveries opened.
 */
export async function measureWebhooks(api: Api, environmentId: string, options: { latencySamples: number; throughputWrites: number }) {
  const receiver = await startHttpsReceiver({ status: 204 });
  const arrivals = new Map<string, number>();
  receiver.respond((received) => {
    const event = JSON.parse(received.body) as { data: { key: string } };
    if (!arrivals.has(event.data.key)) arrivals.set(event.data.key, performance.now());
    return { status: 204 };
  });
  try {
    await replaceEndpoints(api, receiver.origin, ['/latency'], ['service.secret.create']);
    const latencies: number[] = [];
    for (let i = 0; i < options.latencySamples; i++) {
      const key = `LAT_${i}`;
      const sent = performance.now();
      await request(api, 'PUT', `/api/v1/environments/${environmentId}/secrets`, { key, value: 'v' });
      while (!arrivals.has(key)) await new Promise((resolve) => setTimeout(resolve, 2));
      latencies.push(arrivals.get(key)! - sent);
    }

    await replaceEndpoints(
      api,
      receiver.origin,
      Array.from({ length: 20 }, (_, i) => `/t${i}`),
      ['service.secret.rotate'],
    );
    const before = receiver.requests.length;
    const connectionsBefore = receiver.connections();
    const expected = before + 20 * options.throughputWrites;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.throughputWrites }, (_, i) =>
        request(api, 'PUT', `/api/v1/environments/${environmentId}/secrets`, { key: `LAT_${i % options.latencySamples}`, value: `r${i}` }),
      ),
    );
    const deadline = Date.now() + 120_000;
    while (receiver.requests.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const seconds = (performance.now() - started) / 1000;
    const delivered = receiver.requests.length - before;
    const connections = receiver.connections() - connectionsBefore;
    // The last invocation records its results after the receiver answered; give it a moment to close its pool.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return {
      writeToReceiveP50Ms: quantile(latencies, 0.5),
      writeToReceiveP95Ms: quantile(latencies, 0.95),
      deliveriesPerSecond: Math.round((delivered / seconds) * 10) / 10,
      delivered,
      expected: expected - before,
      /** TLS connections the receiver accepted for the throughput deliveries (one per attempt without reuse). */
      connectionsOpened: connections,
      /** Connections still open once every delivery arrived: the worker closes its pool as each invocation ends. */
      connectionsLeftOpen: receiver.openConnections(),
    };
  } finally {
    await receiver.close();
  }
}

/**
 * The statistics rollup works once per workspace and two-minute bucket (shared/webhooks/stats/delivery-stats-store.ts): its message
 * arrives 31 s after a bucket ends, and the fan-out asks for it with a bucket's first delivery. A measurement of one
 * event starts where neither falls in its next 20 s (a wait of a minute at most), so it prices the event's own work; the
 * rollup's is priced per delivery apart (`measureRollupShare`).
 */
async function clearOfRollups(): Promise<void> {
  const busy: [number, number][] = [
    [-5_000, 3_000],
    [LATE_AFTER_MS + ROLLUP_SAFETY_MS - 5_000, LATE_AFTER_MS + ROLLUP_SAFETY_MS + 15_000],
  ];
  const section = 20_000;
  const clear = (phase: number) =>
    busy.every(([from, to]) => [0, STATS_BUCKET_MS].every((cycle) => phase + section <= cycle + from || phase >= cycle + to));
  let wait = 0;
  while (!clear((Date.now() + wait) % STATS_BUCKET_MS)) wait += 500;
  await new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * What one webhook delivery costs when each event goes to `endpoints` endpoints of one local HTTPS receiver (10: a
 * full worker batch; 1: the worst case), and events are written `eventsAtOnce` at a time (together they reach the
 * fan-out in a few stream batches and the worker in a few SQS batches, as events of a busy moment do). Warm, like
 * every other operation (a first event warms the data-key cache). The requests of one round, priced by the meter, are
 * divided among its deliveries; the pipeline's Lambda invocations and billed milliseconds (wall time, the wait on the
 * receiver included, rounded up per invocation) come from five further rounds with no pricing reads and nothing else
 * running. The statistics rollup's share of a delivery, at 10,000 deliveries a day per endpoint, is measured apart.
 */
export async function measureDelivery(
  api: Api,
  environmentId: string,
  recorder: ReturnType<typeof makeCallRecorder>,
  endpoints: number,
  eventsAtOnce = 1,
) {
  const receiver = await startHttpsReceiver({ status: 204 });
  await replaceEndpoints(
    api,
    receiver.origin,
    Array.from({ length: endpoints }, (_, i) => `/e${i}`),
    ['service.secret.create'],
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await clearOfRollups();
  let n = 0;
  const deliveriesPerRound = endpoints * eventsAtOnce;
  const event = async () => {
    const before = receiver.requests.length;
    const write = () =>
      request(api, 'PUT', `/api/v1/environments/${environmentId}/secrets`, {
        key: `DELIVERY_${endpoints}_${eventsAtOnce}_${n++}`,
        value: 'v',
      });
    await Promise.all(Array.from({ length: eventsAtOnce }, write));
    while (receiver.requests.length < before + deliveriesPerRound) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const invocations: InvocationEvent[] = [];
  try {
    await event();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const calls = await recorder.measure(['webhook-fanout', 'delivery-worker'], event, 1500);
    const stop = observeInvocations((e) => invocations.push(e));
    for (let i = 0; i < 5; i++) await event();
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop();
    const delivered = 5 * deliveriesPerRound;
    const share = (scope: string) => ({
      invocations: invocations.filter((e) => e.scope === scope).length / delivered,
      billedMs: invocations.filter((e) => e.scope === scope).reduce((sum, e) => sum + Math.ceil(e.wallMs), 0) / delivered,
    });
    const rollup = await measureRollupShare(recorder, endpoints);
    return {
      endpoints,
      eventsAtOnce,
      calls: perUnit(calls, deliveriesPerRound),
      fanout: share('webhook-fanout'),
      worker: share('delivery-worker'),
      rollup,
    };
  } finally {
    await receiver.close();
  }
}

/**
 * Dollars per million deliveries: the delivery's own requests, the event source's ReceiveMessage and
 * DeleteMessageBatch per worker invocation, the Lambda share; and the statistics rollup's share (its requests,
 * messages and invocations per delivery at 10,000 deliveries a day per endpoint), which `costPerMillionDeliveriesUsd`
 * includes.
 */
export function priceDelivery(delivery: Awaited<ReturnType<typeof measureDelivery>>) {
  const esmRequests = 2 * delivery.worker.invocations;
  const deliveryPathUsd = costPerMillion(
    { ...delivery.calls, sqsBilledRequests: delivery.calls.sqsBilledRequests + esmRequests },
    {
      lambdaInvocations: delivery.fanout.invocations + delivery.worker.invocations,
      durationMs: delivery.fanout.billedMs + delivery.worker.billedMs,
    },
  );
  const { rollup } = delivery;
  return {
    endpointsPerEvent: delivery.endpoints,
    eventsAtOnce: delivery.eventsAtOnce,
    costPerMillionDeliveriesUsd: Math.round((deliveryPathUsd + rollup.costPerMillionUsd) * 1000) / 1000,
    deliveryPathCostPerMillionUsd: deliveryPathUsd,
    statsRollup: {
      deliveriesPerDayPerEndpoint: REFERENCE_DELIVERIES_PER_DAY,
      costPerMillionDeliveriesUsd: rollup.costPerMillionUsd,
      perDelivery: { ...rollup.calls, sqsRequests: rollup.sqsRequests, invocations: rollup.invocations, billedMs: rollup.billedMs },
    },
    perDelivery: {
      ...delivery.calls,
      eventSourceSqsRequests: round2(esmRequests),
      fanoutInvocations: round2(delivery.fanout.invocations),
      workerInvocations: round2(delivery.worker.invocations),
      fanoutBilledMs: round2(delivery.fanout.billedMs),
      workerBilledMs: round2(delivery.worker.billedMs),
    },
  };
}
