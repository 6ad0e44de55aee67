import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** What the delivery-health dashboard counts, emitted as CloudWatch Embedded Metric Format by the worker. */
export interface DeliveryMetrics {
  attempt(outcome: { ok: boolean; latencyMs: number; reason?: string }): void;
  retryScheduled(channel: 'sqs' | 'scheduler'): void;
  exhausted(): void;
  autoDisabled(): void;
  dropped(): void;
  /** Writes the buffered metrics (one EMF line); call once per invocation. */
  flush(): void;
}

export const METRICS_NAMESPACE = 'SecretsService';

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
  for (const [prefix, reason] of [['timed out', 'timeout'], ['blocked', 'blocked'], ['TLS', 'tls'], ['DNS', 'dns'], ['connection', 'connection']] as const) {
    if (error.startsWith(prefix)) return reason;
  }
  return 'other';
}

/** Powertools Metrics behind the worker's narrow interface. */
export function makeDeliveryMetrics(metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'webhook-delivery' })): DeliveryMetrics {
  const count = (name: string, dimension?: [string, string]) => {
    if (!dimension) return void metrics.addMetric(name, MetricUnit.Count, 1);
    const single = metrics.singleMetric();
    single.addDimension(dimension[0], dimension[1]);
    single.addMetric(name, MetricUnit.Count, 1);
  };
  return {
    attempt({ ok, latencyMs, reason }) {
      count('DeliveryAttempts');
      metrics.addMetric('AttemptLatency', MetricUnit.Milliseconds, latencyMs);
      if (ok) count('DeliverySuccesses');
      else count('DeliveryFailures', ['Reason', reason ?? 'other']);
    },
    retryScheduled: (channel) => count('RetriesScheduled', ['Channel', channel]),
    exhausted: () => count('DeliveriesExhausted'),
    autoDisabled: () => count('EndpointsAutoDisabled'),
    dropped: () => count('MessagesDropped'),
    flush: () => metrics.publishStoredMetrics(),
  };
}
