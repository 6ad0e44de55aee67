import { METRICS_NAMESPACE, metricsDisabled } from '../../platform/metrics-env.ts';
/** What the delivery-health dashboard counts, emitted as CloudWatch Embedded Metric Format by the worker. */
export interface DeliveryMetrics {
  attempt(outcome: { ok: boolean; latencyMs: number; reason?: string }): void;
  retryScheduled(channel: 'sqs' | 'scheduler'): void;
  exhausted(): void;
  autoDisabled(): void;
  dropped(): void;
  /** Failed deliveries a recovery queued again. */
  recovered(count: number): void;
  /** An attempt of a test event (`service.ping`). */
  testEventSent(): void;
  /** Writes the buffered metrics (one EMF line); call once per invocation. */
  flush(): void;
}

export { METRICS_NAMESPACE } from '../../platform/metrics-env.ts';

/**
 * Why an attempt failed, as a low-cardinality dimension: `http_4xx`, `http_5xx`, `redirect`, `timeout`,
 * `connection`, `tls`, `dns`, `blocked` or `other`.
 */
export function failureReason(result: { statusCode: number | null; error: string | null }): string {
  if (result.statusCode !== null) {
    if (result.statusCode >= 300 && result.statusCode < 400) return 'redirect';
    return result.statusCode >= 500 ? 'http_5xx' : 'http_4xx';
  }
  const error = result.error ?? '';
  for (const [prefix, reason] of [
    ['timed out', 'timeout'],
    ['blocked', 'blocked'],
    ['TLS', 'tls'],
    ['DNS', 'dns'],
    ['connection', 'connection'],
  ] as const) {
    if (error.startsWith(prefix)) return reason;
  }
  return 'other';
}

type Unit = 'Count' | 'Milliseconds';

/** At most this many values of one metric in one EMF document (CloudWatch's limit); a fuller buffer is written early. */
const MAX_VALUES = 100;

/**
 * The worker's delivery-health metrics as CloudWatch Embedded Metric Format lines on stdout, the documents
 * Powertools Metrics wrote (namespace `SecretsService`, a `service` dimension of `webhook-delivery`; a metric added
 * twice carries an array of values; a metric with its own dimension is its own document, written at once). Written
 * by hand: the format is one JSON object, and the library was 13 KB of the worker's bundle and part of its cold start.
 */
export function makeDeliveryMetrics(options: { write?: (line: string) => void; env?: NodeJS.ProcessEnv } = {}): DeliveryMetrics {
  // Read once, as Powertools read it at construction: not again for every document of every attempt.
  const disabled = metricsDisabled(options.env ?? process.env);
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const service = { service: 'webhook-delivery' };
  const stored = new Map<string, { unit: Unit; values: number[] }>();

  const document = (metrics: [string, Unit, number | number[]][], dimensions: Record<string, string>) => {
    if (disabled) return;
    const body: Record<string, unknown> = {
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          { Namespace: METRICS_NAMESPACE, Dimensions: [Object.keys(dimensions)], Metrics: metrics.map(([Name, Unit]) => ({ Name, Unit })) },
        ],
      },
      ...dimensions,
    };
    for (const [name, , value] of metrics) body[name] = value;
    write(`${JSON.stringify(body)}\n`);
  };
  const flush = () => {
    if (stored.size === 0) return;
    const metrics = [...stored].map(
      ([name, { unit, values }]) => [name, unit, values.length === 1 ? values[0]! : values] as [string, Unit, number | number[]],
    );
    stored.clear();
    document(metrics, service);
  };
  const add = (name: string, unit: Unit, value: number) => {
    const metric = stored.get(name) ?? { unit, values: [] };
    stored.set(name, metric);
    metric.values.push(value);
    if (metric.values.length >= MAX_VALUES) flush();
  };
  const count = (name: string, dimension?: [string, string]) => {
    if (!dimension) return add(name, 'Count', 1);
    document([[name, 'Count', 1]], { ...service, [dimension[0]]: dimension[1] });
  };
  return {
    attempt({ ok, latencyMs, reason }) {
      count('DeliveryAttempts');
      add('AttemptLatency', 'Milliseconds', latencyMs);
      if (ok) count('DeliverySuccesses');
      else count('DeliveryFailures', ['Reason', reason ?? 'other']);
    },
    retryScheduled: (channel) => count('RetriesScheduled', ['Channel', channel]),
    exhausted: () => count('DeliveriesExhausted'),
    autoDisabled: () => count('EndpointsAutoDisabled'),
    dropped: () => count('MessagesDropped'),
    recovered: (n) => add('DeliveriesRecovered', 'Count', n),
    testEventSent: () => count('TestEventsSent'),
    flush,
  };
}
