import { afterEach, describe, expect, it, vi } from 'vitest';
import { failureReason, makeDeliveryMetrics } from '../../../../shared/webhooks/deliveries/metrics.ts';

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
    const documents = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.includes('_aws'))
      .map((line) => JSON.parse(line));
    const names = documents.flatMap((d) =>
      d._aws.CloudWatchMetrics.flatMap((m: { Metrics: { Name: string }[] }) => m.Metrics.map((x) => x.Name)),
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'DeliveryAttempts',
        'AttemptLatency',
        'DeliverySuccesses',
        'DeliveryFailures',
        'RetriesScheduled',
        'DeliveriesExhausted',
        'EndpointsAutoDisabled',
      ]),
    );
    const failure = documents.find((d) => 'DeliveryFailures' in d);
    expect(failure).toMatchObject({ Reason: 'timeout', DeliveryFailures: 1 });
    expect(documents.every((d) => d._aws.CloudWatchMetrics[0].Namespace === 'SecretsService')).toBe(true);
    expect(documents.find((d) => 'AttemptLatency' in d)?.AttemptLatency).toEqual([120, 10_000]);
  });

  it("write the documents CloudWatch reads: Powertools' shape, arrays for repeated values, nothing when empty or switched off", () => {
    const lines: string[] = [];
    const metrics = makeDeliveryMetrics({ write: (line) => lines.push(line), env: {} });
    metrics.flush();
    expect(lines).toEqual([]);
    metrics.attempt({ ok: false, latencyMs: 7, reason: 'http_5xx' });
    metrics.attempt({ ok: true, latencyMs: 9 });
    expect(lines).toHaveLength(1);
    const failure = JSON.parse(lines[0]!);
    expect(failure).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          { Namespace: 'SecretsService', Dimensions: [['service', 'Reason']], Metrics: [{ Name: 'DeliveryFailures', Unit: 'Count' }] },
        ],
      },
      service: 'webhook-delivery',
      Reason: 'http_5xx',
      DeliveryFailures: 1,
    });
    metrics.flush();
    metrics.flush();
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith('\n'))).toBe(true);
    expect(JSON.parse(lines[1]!)).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: 'SecretsService',
            Dimensions: [['service']],
            Metrics: [
              { Name: 'DeliveryAttempts', Unit: 'Count' },
              { Name: 'AttemptLatency', Unit: 'Milliseconds' },
              { Name: 'DeliverySuccesses', Unit: 'Count' },
            ],
          },
        ],
      },
      service: 'webhook-delivery',
      DeliveryAttempts: [1, 1],
      AttemptLatency: [7, 9],
      DeliverySuccesses: 1,
    });
    for (const env of [{ POWERTOOLS_METRICS_DISABLED: 'true' }, { POWERTOOLS_METRICS_DISABLED: ' Yes ' }, { POWERTOOLS_DEV: '1' }]) {
      const off: string[] = [];
      const silent = makeDeliveryMetrics({ write: (line) => off.push(line), env });
      silent.attempt({ ok: false, latencyMs: 1, reason: 'dns' });
      silent.flush();
      expect({ env, off }).toEqual({ env, off: [] });
    }
    // POWERTOOLS_METRICS_DISABLED set to false wins over POWERTOOLS_DEV.
    const on: string[] = [];
    const enabled = makeDeliveryMetrics({
      write: (line) => on.push(line),
      env: { POWERTOOLS_METRICS_DISABLED: 'false', POWERTOOLS_DEV: 'true' },
    });
    enabled.exhausted();
    enabled.flush();
    expect(on.map((line) => JSON.parse(line).DeliveriesExhausted)).toEqual([1]);
  });

  it("write a metric's values early at CloudWatch's limit of 100 values a document", () => {
    const lines: string[] = [];
    const metrics = makeDeliveryMetrics({ write: (line) => lines.push(line), env: {} });
    for (let i = 0; i < 99; i++) metrics.dropped();
    expect(lines).toHaveLength(0);
    metrics.dropped();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).MessagesDropped).toHaveLength(100);
    metrics.dropped();
    metrics.flush();
    expect(JSON.parse(lines[1]!).MessagesDropped).toBe(1);
  });
});
