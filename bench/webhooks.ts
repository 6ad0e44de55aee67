import { startHttpsReceiver } from '../test/support/https-receiver.ts';
import { request, type Api } from './load.ts';
import { quantile } from './stats.ts';

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
    const first = await request(api, 'POST', '/api/v1/webhooks', { url: `${receiver.origin}/latency`, events: ['service.secret.create'] }, 201);
    const latencies: number[] = [];
    for (let i = 0; i < options.latencySamples; i++) {
      const key = `LAT_${i}`;
      const sent = performance.now();
      await request(api, 'PUT', `/api/v1/environments/${environmentId}/secrets`, { key, value: 'v' });
      while (!arrivals.has(key)) await new Promise((resolve) => setTimeout(resolve, 2));
      latencies.push(arrivals.get(key)! - sent);
    }
    await request(api, 'DELETE', `/api/v1/webhooks/${first.data.id}`);

    for (let i = 0; i < 20; i++) await request(api, 'POST', '/api/v1/webhooks', { url: `${receiver.origin}/t${i}`, events: ['service.secret.rotate'] }, 201);
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
