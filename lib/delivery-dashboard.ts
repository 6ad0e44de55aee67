import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  type Metric,
  type IWidget,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function.ts';
import type { SecretRotationConstruct } from './secret-rotation.ts';
import {
  deliveryMetric,
  deliveryMetricsBy,
  deliveryMetricTotal,
  deliverySuccessRate,
  type RevealMetrics,
  rotationFailures,
  rotationFailuresByStep,
  syncsFailing,
} from './service-metrics.ts';
import type { SyncsConstruct } from './syncs.ts';
import type { WebhookDeliveryConstruct } from './webhook-delivery.ts';

export interface DeliveryHealthDashboardProps {
  readonly httpApi: HttpApi;
  readonly delivery: WebhookDeliveryConstruct;
  readonly rotation: SecretRotationConstruct;
  readonly syncs: SyncsConstruct;
  /** Audit streams' row (lib/audit-streams.ts). */
  readonly auditStreams: { widgets(): IWidget[] };
  readonly functions: Record<string, ServiceFunction>;
  readonly reveals: RevealMetrics;
  /** Logins answered 429 (lib/service-metrics.ts `loginsRateLimited`). */
  readonly loginsRateLimited: Metric;
  readonly alarms: readonly Alarm[];
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * The "delivery health" dashboard, top to bottom: alarms; deliveries (outcomes, success rate, latency, failure
 * reasons, retries, give-ups, recoveries and test events); the queue and the stream; rotations (failures, their
 * queue and dead-letter queue); syncs (those become failing, their queue, dead-letter queue and oldest message, the
 * worker's errors and p95 duration); every function's errors and throttles; the API, reveals and logins refused by
 * their budgets.
 * docs/operations.md explains how to read it.
 */
export class DeliveryHealthDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: DeliveryHealthDashboardProps) {
    super(scope, id);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-delivery-health`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# Delivery health: ${Stack.of(this).stackName}\nWebhook deliveries, their queue and stream, rotations, syncs, every function and the API. How to read it: docs/operations.md.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 3 }));
    this.dashboard.addWidgets(...deliveryWidgets());
    this.dashboard.addWidgets(...pipelineWidgets(props.delivery));
    this.dashboard.addWidgets(...rotationWidgets(props.rotation));
    this.dashboard.addWidgets(...syncWidgets(props.syncs));
    this.dashboard.addWidgets(...props.auditStreams.widgets());
    this.dashboard.addWidgets(...functionWidgets(props.functions));
    this.dashboard.addWidgets(...apiWidgets(props.httpApi, props.reveals, props.loginsRateLimited));
  }
}

function graph(title: string, left: IMetric[], options: { width?: number; leftMin?: number; leftMax?: number } = {}): GraphWidget {
  return new GraphWidget({
    title,
    left,
    width: options.width ?? 8,
    height: 6,
    leftYAxis: { min: options.leftMin ?? 0, ...(options.leftMax !== undefined && { max: options.leftMax }) },
  });
}

function deliveryWidgets(): IWidget[] {
  return [
    graph('Deliveries attempted / succeeded / failed', [
      deliveryMetric('DeliveryAttempts').with({ label: 'Attempted' }),
      deliveryMetric('DeliverySuccesses').with({ label: 'Succeeded' }),
      deliveryMetricTotal('DeliveryFailures', 'Reason', 'Failed'),
    ]),
    graph('Delivery success rate (%)', [deliverySuccessRate()], { leftMax: 100 }),
    graph('Attempt latency p50 / p95 / p99 (ms)', [
      deliveryMetric('AttemptLatency', Stats.p(50)).with({ label: 'p50' }),
      deliveryMetric('AttemptLatency', Stats.p(95)).with({ label: 'p95' }),
      deliveryMetric('AttemptLatency', Stats.p(99)).with({ label: 'p99' }),
    ]),
    graph('Delivery failures by reason', [deliveryMetricsBy('DeliveryFailures', 'Reason')]),
    graph('Retries scheduled by channel (sqs, scheduler)', [deliveryMetricsBy('RetriesScheduled', 'Channel')]),
    graph('Deliveries exhausted / endpoints auto-disabled / messages dropped', [
      deliveryMetric('DeliveriesExhausted').with({ label: 'Deliveries exhausted' }),
      deliveryMetric('EndpointsAutoDisabled').with({ label: 'Endpoints auto-disabled' }),
      deliveryMetric('MessagesDropped').with({ label: 'Messages dropped (stale token)' }),
    ]),
    graph(
      'Failed deliveries recovered / test events sent',
      [
        deliveryMetric('DeliveriesRecovered').with({ label: 'Recovered (queued again by POST /webhooks/{id}/recover)' }),
        deliveryMetric('TestEventsSent').with({ label: 'Test event attempts (service.ping)' }),
      ],
      { width: 24 },
    ),
  ];
}

function pipelineWidgets(delivery: WebhookDeliveryConstruct): IWidget[] {
  const max = { statistic: Stats.MAXIMUM, period: FIVE_MINUTES };
  return [
    graph('Delivery queue depth', [
      delivery.queue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Visible' }),
      delivery.queue.metricApproximateNumberOfMessagesNotVisible({ ...max, label: 'In flight' }),
      delivery.queue.metric('ApproximateNumberOfMessagesDelayed', { ...max, label: 'Delayed' }),
    ]),
    graph('Age of the oldest message (s)', [delivery.queue.metricApproximateAgeOfOldestMessage({ ...max, label: 'Oldest message' })]),
    graph('Dead-letter queues depth', [
      delivery.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Delivery DLQ' }),
      delivery.streamFailureQueue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Stream failures' }),
    ]),
    graph(
      'Fan-out iterator age (ms)',
      [delivery.functions['webhook-fanout'].function.metric('IteratorAge', { ...max, label: 'Iterator age' })],
      { width: 24 },
    ),
  ];
}

function rotationWidgets(rotation: SecretRotationConstruct): IWidget[] {
  const max = { statistic: Stats.MAXIMUM, period: FIVE_MINUTES };
  return [
    graph(
      'Rotation failures (all steps, and by step)',
      [rotationFailures().with({ label: 'Failed rotations' }), rotationFailuresByStep()],
      {
        width: 12,
      },
    ),
    graph(
      'Rotation queue and dead-letter queue',
      [
        rotation.queue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Steps waiting' }),
        rotation.queue.metricApproximateNumberOfMessagesNotVisible({ ...max, label: 'Steps running' }),
        rotation.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Rotation DLQ' }),
      ],
      { width: 12 },
    ),
  ];
}

/** The syncs' row (decisions.md v1.4, "Syncs"): what the `syncs-failing` and `sync-dlq-not-empty` alarms watch, and why. */
function syncWidgets(syncs: SyncsConstruct): IWidget[] {
  const max = { statistic: Stats.MAXIMUM, period: FIVE_MINUTES };
  const worker = syncs.worker.function;
  return [
    graph('Syncs that became failing', [syncsFailing().with({ label: 'Syncs become failing (24 hours of failed pushes)' })]),
    graph('Sync queue and dead-letter queue', [
      syncs.queue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Visible' }),
      syncs.queue.metricApproximateNumberOfMessagesNotVisible({ ...max, label: 'In flight' }),
      // Retries wait here: the worker queues them again on its own queue with a delay.
      syncs.queue.metric('ApproximateNumberOfMessagesDelayed', { ...max, label: 'Delayed' }),
      syncs.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ ...max, label: 'Sync DLQ' }),
    ]),
    graph('Age of the oldest sync message (s)', [syncs.queue.metricApproximateAgeOfOldestMessage({ ...max, label: 'Oldest message' })]),
    graph('Sync worker errors', [worker.metricErrors({ statistic: Stats.SUM, period: FIVE_MINUTES, label: 'Errors' })], { width: 12 }),
    graph('Sync worker duration p95 (ms)', [worker.metricDuration({ statistic: Stats.p(95), period: FIVE_MINUTES, label: 'p95' })], {
      width: 12,
    }),
  ];
}

function functionWidgets(functions: Record<string, ServiceFunction>): IWidget[] {
  const sum = { statistic: Stats.SUM, period: FIVE_MINUTES };
  const entries = Object.entries(functions);
  return [
    graph(
      'Lambda errors per function',
      entries.map(([name, fn]) => fn.function.metricErrors({ ...sum, label: name })),
      { width: 12 },
    ),
    graph(
      'Lambda throttles per function',
      entries.map(([name, fn]) => fn.function.metricThrottles({ ...sum, label: name })),
      { width: 12 },
    ),
  ];
}

function apiWidgets(httpApi: HttpApi, reveals: RevealMetrics, loginsRateLimited: Metric): IWidget[] {
  const sum = { statistic: Stats.SUM, period: FIVE_MINUTES };
  return [
    graph('API 4xx / 5xx', [httpApi.metricClientError({ ...sum, label: '4xx' }), httpApi.metricServerError({ ...sum, label: '5xx' })]),
    graph('API latency p50 / p99 (ms)', [
      httpApi.metricLatency({ statistic: Stats.p(50), period: FIVE_MINUTES, label: 'p50' }),
      httpApi.metricLatency({ statistic: Stats.p(99), period: FIVE_MINUTES, label: 'p99' }),
    ]),
    graph('Reveals per minute', [
      reveals.succeeded.with({ label: 'Revealed' }),
      reveals.rateLimited.with({ label: 'Refused by the rate limit' }),
    ]),
    graph(
      'Logins refused 429 per minute (login budgets, route throttling)',
      [loginsRateLimited.with({ label: 'Logins answered 429 RATE_LIMITED' })],
      { width: 24 },
    ),
  ];
}
