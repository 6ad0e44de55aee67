import { afterEach, describe, expect, it, vi } from 'vitest';
import { failureReason, makeDeliveryMetrics } from '../../../shared/webhooks/metrics.ts';

describe('delivery metrics', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('classify failures into a few reasons', () => {
    expect(failureReason({ statusCode: 503, error: 'HTTP 503' })).toBe('http_5xx');
    expect(failureReason({ statusCode: 404, error: 'HTTP 404' })).toBe('http_4xx');
    expect(failureReason({ statusCode: 302, error: 'redirect (302) to x not followed' })).toBe('redirect');
    expect(failureReason({ statusCode: null, error: 'timed out after 10 s' })).toBe('timeout');
    expect(failureReason({ statusCode: null, error: 'connection refused' })).toBe('connection');
    expect(failureReason({ statusCode: null, error: 'blocked: x resolves to 10.0.0.1 (private)' })).toBe('blocked');
    expect(failureReason({ statusCode: null, error: 'TLS: EPROTO' })).toBe('tls');
    expect(failureReason({ statusCode: null, error: 'DNS: ENOTFOUND' })).toBe('dns');
    expect(failureReason({ statusCode: null, error: 'weird' })).toBe('other');
  });

  it('emit CloudWatch Embedded Metric Format with attempts, latency, successes and failures by reason', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_DEV', '');
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    vi.spyOn(console, 'log').mockImplementation((...args) => void lines.push(args.join(' ')));
    const metrics = makeDeliveryMetrics();
    metrics.attempt({ ok: true, latencyMs: 120 });
    metrics.attempt({ ok: false, latencyMs: 10_000, reason: 'timeout' });
    metrics.retryScheduled('scheduler');
    metrics.exhausted();
    metrics.autoDisabled();
    metrics.flush();
    const documents = lines.flatMap((line) => line.split('\n')).filter((line) => line.includes('_aws')).map((line) => JSON.parse(line));
    const names = documents.flatMap((d) => d._aws.CloudWatchMetrics.flatMap((m: { Metrics: { Name: string }[] }) => m.Metrics.map((x) => x.Name)));
    expect(names).toEqual(expect.arrayContaining(['DeliveryAttempts', 'AttemptLatency', 'DeliverySuccesses', 'DeliveryFailures', 'RetriesScheduled', 'DeliveriesExhausted', 'EndpointsAutoDisabled']));
    const failure = documents.find((d) => 'DeliveryFailures' in d);
    expect(failure).toMatchObject({ Reason: 'timeout', DeliveryFailures: 1 });
    expect(documents.every((d) => d._aws.CloudWatchMetrics[0].Namespace === 'SecretsService')).toBe(true);
    expect(documents.find((d) => 'AttemptLatency' in d)?.AttemptLatency).toEqual([120, 10_000]);
  });
});
