import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServiceStack } from '../../lib/service-stack.ts';
import {
  AUDIT_STREAM_DISABLED_METRIC,
  AUDIT_STREAM_FAILED_METRIC,
  countLine,
  SYNC_FAILING_METRIC,
} from '../../shared/platform/metrics-env.ts';
import { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { makeRotationMetrics } from '../../shared/rotation/rotation-metrics.ts';
import { makeDeliveryMetrics } from '../../shared/webhooks/deliveries/metrics.ts';
import { dashboardBody, FUNCTION_NAMES, functionsOf, idOf, makeOutdir, only, type Resource, synth, type Widget } from './synth.ts';

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let stack: ServiceStack;
let template: Template;
let widgets: Widget[];

beforeAll(async () => {
  outdir = await makeOutdir('infra-monitoring-');
  // Act
  ({ stack, template } = synth(outdir.dir, { alarmEmail: 'oncall@example.com' }));
  const [, dashboard] = only(template, 'AWS::CloudWatch::Dashboard');
  widgets = dashboardBody(dashboard).widgets;
});

afterAll(async () => {
  await outdir.cleanup();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** One graph's metric rows: `[namespace, name, dim, value, ..., {options}]` or `[{expression, ...}]`. */
type Row = (string | Record<string, any>)[];

function graph(title: string): Row[] {
  const found = widgets.filter((widget) => widget.properties.title === title);
  expect(found, `widget "${title}"`).toHaveLength(1);
  return found[0]!.properties.metrics as Row[];
}

/** The metric rows of a graph as `namespace/name dim=value ... stat`, expressions as `= expression`. */
function describeRows(rows: Row[]): string[] {
  return rows.map((row) => {
    const options = row.at(-1) as Record<string, any>;
    if (typeof row[0] !== 'string') return `= ${options.expression}`;
    const names = row.filter((part) => typeof part === 'string') as string[];
    const [namespace, metric, ...dims] = names;
    const pairs = dims.flatMap((_, i) => (i % 2 === 0 ? [`${dims[i]}=${dims[i + 1]}`] : []));
    return [`${namespace}/${metric}`, ...pairs, options.stat].filter(Boolean).join(' ');
  });
}

const ref = (id: string) => `<${id}>`;
const attr = (id: string, name: string) => `<${id}.${name}>`;

describe('delivery health dashboard', () => {
  it('is named after the stack and shows the alarms first', () => {
    const [, dashboard] = only(template, 'AWS::CloudWatch::Dashboard');
    expect(dashboard.Properties.DashboardName).toBe('SecretsService-test-delivery-health');
    const alarmWidget = widgets.find((widget) => widget.type === 'alarm');
    expect(alarmWidget?.properties.alarms).toHaveLength(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).length);
  });

  it('shows deliveries attempted, succeeded and failed (all failure reasons), and the success rate', () => {
    expect(describeRows(graph('Deliveries attempted / succeeded / failed'))).toEqual([
      'SecretsService/DeliveryAttempts service=webhook-delivery Sum',
      'SecretsService/DeliverySuccesses service=webhook-delivery Sum',
      `= SUM(SEARCH('{SecretsService,Reason,service} MetricName="DeliveryFailures" service="webhook-delivery"', 'Sum', 300))`,
    ]);
    expect(describeRows(graph('Delivery success rate (%)'))).toEqual([
      '= IF(attempts > 0, 100 * FILL(successes, 0) / attempts)',
      'SecretsService/DeliveryAttempts service=webhook-delivery Sum',
      'SecretsService/DeliverySuccesses service=webhook-delivery Sum',
    ]);
    expect(
      graph('Delivery success rate (%)')
        .slice(1)
        .map((row) => (row.at(-1) as { id: string }).id),
    ).toEqual(['attempts', 'successes']);
  });

  it('shows attempt latency p50/p95/p99, failures by reason, retries by channel, exhausted, auto-disabled and dropped', () => {
    expect(describeRows(graph('Attempt latency p50 / p95 / p99 (ms)'))).toEqual(
      ['p50', 'p95', 'p99'].map((stat) => `SecretsService/AttemptLatency service=webhook-delivery ${stat}`),
    );
    expect(describeRows(graph('Delivery failures by reason'))).toEqual([
      `= SEARCH('{SecretsService,Reason,service} MetricName="DeliveryFailures" service="webhook-delivery"', 'Sum', 300)`,
    ]);
    expect(describeRows(graph('Retries scheduled by channel (sqs, scheduler)'))).toEqual([
      `= SEARCH('{SecretsService,Channel,service} MetricName="RetriesScheduled" service="webhook-delivery"', 'Sum', 300)`,
    ]);
    expect(describeRows(graph('Deliveries exhausted / endpoints auto-disabled / messages dropped'))).toEqual(
      ['DeliveriesExhausted', 'EndpointsAutoDisabled', 'MessagesDropped'].map(
        (name) => `SecretsService/${name} service=webhook-delivery Sum`,
      ),
    );
    expect(describeRows(graph('Failed deliveries recovered / test events sent'))).toEqual(
      ['DeliveriesRecovered', 'TestEventsSent'].map((name) => `SecretsService/${name} service=webhook-delivery Sum`),
    );
  });

  it('shows queue depth, the age of the oldest message, both dead-letter queues and the fan-out iterator age', () => {
    const queue = attr(idOf(stack, stack.delivery.queue), 'QueueName');
    expect(describeRows(graph('Delivery queue depth'))).toEqual(
      ['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'].map(
        (name) => `AWS/SQS/${name} QueueName=${queue} Maximum`,
      ),
    );
    expect(describeRows(graph('Age of the oldest message (s)'))).toEqual([
      `AWS/SQS/ApproximateAgeOfOldestMessage QueueName=${queue} Maximum`,
    ]);
    expect(describeRows(graph('Dead-letter queues depth'))).toEqual([
      `AWS/SQS/ApproximateNumberOfMessagesVisible QueueName=${attr(idOf(stack, stack.delivery.deadLetterQueue), 'QueueName')} Maximum`,
      `AWS/SQS/ApproximateNumberOfMessagesVisible QueueName=${attr(idOf(stack, stack.delivery.streamFailureQueue), 'QueueName')} Maximum`,
    ]);
    const fanout = ref(idOf(stack, stack.delivery.functions['webhook-fanout'].function));
    expect(describeRows(graph('Fan-out iterator age (ms)'))).toEqual([`AWS/Lambda/IteratorAge FunctionName=${fanout} Maximum`]);
  });

  it('shows failed rotations (all steps, and one line per step), the rotation queue and its dead-letter queue', () => {
    expect(describeRows(graph('Rotation failures (all steps, and by step)'))).toEqual([
      'SecretsService/RotationFailures service=rotation Sum',
      `= SEARCH('{SecretsService,step,service} MetricName="RotationFailures" service="rotation"', 'Sum', 300)`,
    ]);
    const queue = attr(idOf(stack, stack.rotation.queue), 'QueueName');
    expect(describeRows(graph('Rotation queue and dead-letter queue'))).toEqual([
      `AWS/SQS/ApproximateNumberOfMessagesVisible QueueName=${queue} Maximum`,
      `AWS/SQS/ApproximateNumberOfMessagesNotVisible QueueName=${queue} Maximum`,
      `AWS/SQS/ApproximateNumberOfMessagesVisible QueueName=${attr(idOf(stack, stack.rotation.deadLetterQueue), 'QueueName')} Maximum`,
    ]);
  });

  it('shows syncs become failing, the sync queue, its dead-letter queue and oldest message, and the worker', () => {
    // The failing line reads what the sync worker prints (shared/syncs/worker-wiring.ts), as it prints it.
    const printed = JSON.parse(countLine(SYNC_FAILING_METRIC)) as {
      _aws: { CloudWatchMetrics: [{ Namespace: string; Metrics: [{ Name: string }] }] };
      service: string;
    };
    const [{ Namespace, Metrics }] = printed._aws.CloudWatchMetrics;
    expect(describeRows(graph('Syncs that became failing'))).toEqual([`${Namespace}/${Metrics[0].Name} service=${printed.service} Sum`]);
    const queue = attr(idOf(stack, stack.syncs.queue), 'QueueName');
    expect(describeRows(graph('Sync queue and dead-letter queue'))).toEqual([
      ...['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'].map(
        (name) => `AWS/SQS/${name} QueueName=${queue} Maximum`,
      ),
      `AWS/SQS/ApproximateNumberOfMessagesVisible QueueName=${attr(idOf(stack, stack.syncs.deadLetterQueue), 'QueueName')} Maximum`,
    ]);
    expect(describeRows(graph('Age of the oldest sync message (s)'))).toEqual([
      `AWS/SQS/ApproximateAgeOfOldestMessage QueueName=${queue} Maximum`,
    ]);
    const worker = ref(idOf(stack, stack.syncs.worker.function));
    expect(describeRows(graph('Sync worker errors'))).toEqual([`AWS/Lambda/Errors FunctionName=${worker} Sum`]);
    expect(describeRows(graph('Sync worker duration p95 (ms)'))).toEqual([`AWS/Lambda/Duration FunctionName=${worker} p95`]);
  });

  it('shows audit stream batches failed and streams disabled as the worker prints them, the queue, its DLQ and oldest message', () => {
    // The lines read what functions/audit-stream-worker prints (countLine), as it prints them.
    const printed = (metric: typeof AUDIT_STREAM_FAILED_METRIC | typeof AUDIT_STREAM_DISABLED_METRIC) => {
      const line = JSON.parse(countLine(metric)) as { _aws: { CloudWatchMetrics: [{ Namespace: string; Metrics: [{ Name: string }] }] } };
      const [{ Namespace, Metrics }] = line._aws.CloudWatchMetrics;
      return `${Namespace}/${Metrics[0].Name} service=${(line as unknown as { service: string }).service} Sum`;
    };
    expect(describeRows(graph('Audit stream batches failed, streams disabled'))).toEqual([
      printed(AUDIT_STREAM_FAILED_METRIC),
      printed(AUDIT_STREAM_DISABLED_METRIC),
    ]);
    const queue = attr(idOf(stack, stack.auditStreams.queue), 'QueueName');
    expect(describeRows(graph('Audit stream queue and dead-letter queue'))).toEqual([
      `AWS/SQS/ApproximateNumberOfMessagesVisible QueueName=${queue} Maximum`,
      `AWS/SQS/ApproximateNumberOfMessagesDelayed QueueName=${queue} Maximum`,
      `AWS/SQS/ApproximateNumberOfMessagesVisible QueueName=${attr(idOf(stack, stack.auditStreams.deadLetterQueue), 'QueueName')} Maximum`,
    ]);
    expect(describeRows(graph('Age of the oldest audit stream message (s)'))).toEqual([
      `AWS/SQS/ApproximateAgeOfOldestMessage QueueName=${queue} Maximum`,
    ]);
  });

  it('shows the errors and the throttles of every function', () => {
    const functions = functionsOf(stack);
    for (const [title, metric] of [
      ['Lambda errors per function', 'Errors'],
      ['Lambda throttles per function', 'Throttles'],
    ] as const) {
      expect(describeRows(graph(title))).toEqual(
        FUNCTION_NAMES.map((name) => `AWS/Lambda/${metric} FunctionName=${ref(idOf(stack, functions[name].function))} Sum`),
      );
      expect(graph(title).map((row) => (row.at(-1) as { label: string }).label)).toEqual([...FUNCTION_NAMES]);
    }
  });

  it('shows API 4xx/5xx, latency and reveals per minute', () => {
    const api = ref(idOf(stack, stack.api.httpApi));
    expect(describeRows(graph('API 4xx / 5xx'))).toEqual([`AWS/ApiGateway/4xx ApiId=${api} Sum`, `AWS/ApiGateway/5xx ApiId=${api} Sum`]);
    expect(describeRows(graph('API latency p50 / p99 (ms)'))).toEqual([
      `AWS/ApiGateway/Latency ApiId=${api} p50`,
      `AWS/ApiGateway/Latency ApiId=${api} p99`,
    ]);
    const reveals = graph('Reveals per minute');
    expect(describeRows(reveals)).toEqual([
      `SecretsService/Reveals ApiId=${api} Sum`,
      `SecretsService/RevealsRateLimited ApiId=${api} Sum`,
    ]);
    expect(reveals.map((row) => (row.at(-1) as { period: number }).period)).toEqual([60, 60]);
  });
});

describe('logins answered 429', () => {
  it('are counted from the access log of the login route, per API, and shown on the dashboard per minute', () => {
    // Assess: the widget reads the metric the filter writes (namespace, name, dimension), per minute
    const api = ref(idOf(stack, stack.api.httpApi));
    const logins = graph('Logins refused 429 per minute (login budgets, route throttling)');
    expect(describeRows(logins)).toEqual([`SecretsService/LoginsRateLimited ApiId=${api} Sum`]);
    expect(logins.map((row) => (row.at(-1) as { period: number }).period)).toEqual([60]);
    const filters = (Object.values(template.findResources('AWS::Logs::MetricFilter')) as Resource[]).filter(
      (filter) => filter.Properties.MetricTransformations[0].MetricName === 'LoginsRateLimited',
    );
    expect(filters.map((filter) => filter.Properties)).toEqual([
      {
        LogGroupName: { Ref: idOf(stack, stack.api.accessLogs) },
        FilterPattern: `{ ($.routeKey = "${ROUTE_GROUPS.auth[0]}") && ($.status = "429") }`,
        MetricTransformations: [
          {
            MetricNamespace: 'SecretsService',
            MetricName: 'LoginsRateLimited',
            MetricValue: '1',
            Dimensions: [{ Key: 'ApiId', Value: '$.apiId' }],
          },
        ],
      },
    ]);
    expect(ROUTE_GROUPS.auth).toEqual(['POST /api/v1/auth/login']);
  });
});

describe('reveals per minute', () => {
  it('counts the two reveal routes in the access log by outcome, per API', () => {
    const revealRoutes = ROUTE_GROUPS.secrets.filter((routeKey) => routeKey.endsWith('/reveal'));
    const routes = revealRoutes.map((routeKey) => `($.routeKey = "${routeKey}")`).join(' || ');
    // The reveal filters; the 401 filter of the hardening issue counts every route.
    const filters = (Object.values(template.findResources('AWS::Logs::MetricFilter')) as Resource[]).filter((filter) =>
      String(filter.Properties.MetricTransformations[0].MetricName).startsWith('Reveals'),
    );
    expect(filters.map((filter) => filter.Properties)).toEqual(
      ['Reveals', 'RevealsRateLimited'].map((name, i) => ({
        LogGroupName: { Ref: idOf(stack, stack.api.accessLogs) },
        FilterPattern: `{ (${routes}) && ($.status = "${['200', '429'][i]}") }`,
        MetricTransformations: [
          { MetricNamespace: 'SecretsService', MetricName: name, MetricValue: '1', Dimensions: [{ Key: 'ApiId', Value: '$.apiId' }] },
        ],
      })),
    );
    // By id, by path, and loading an environment (issue 13).
    expect(revealRoutes).toHaveLength(3);
  });
});

describe('what the worker emits and what the dashboard reads', () => {
  /** Every metric of every EMF document the worker's metrics code prints, with its dimensions and their values. */
  function emitted(lines: string[]): string[] {
    return lines.flatMap((line) => {
      const document = JSON.parse(line) as {
        _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
      } & Record<string, unknown>;
      return document._aws.CloudWatchMetrics.flatMap(({ Namespace, Dimensions, Metrics }) =>
        Metrics.flatMap(({ Name }) =>
          Dimensions.map(
            (set) =>
              `${Namespace}/${Name} ${[...set]
                .sort()
                .map((key) => `${key}=${document[key]}`)
                .join(' ')}`,
          ),
        ),
      );
    });
  }

  it('matches metric for metric: namespace, names, dimension sets and the service value', () => {
    // Prepare: as in Lambda, where POWERTOOLS_SERVICE_NAME names the whole service
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'secrets-service');
    vi.stubEnv('POWERTOOLS_DEV', '');
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      if (String(chunk).includes('"_aws"')) lines.push(String(chunk));
      return true;
    });
    const metrics = makeDeliveryMetrics();

    // Act
    metrics.attempt({ ok: true, latencyMs: 120 });
    metrics.attempt({ ok: false, latencyMs: 10_000, reason: 'timeout' });
    metrics.retryScheduled('scheduler');
    metrics.exhausted();
    metrics.autoDisabled();
    metrics.dropped();
    metrics.recovered(3);
    metrics.testEventSent();
    metrics.flush();

    // Assess
    const names = emitted(lines);
    const service = 'service=webhook-delivery';
    for (const name of [
      'DeliveryAttempts',
      'DeliverySuccesses',
      'AttemptLatency',
      'DeliveriesExhausted',
      'EndpointsAutoDisabled',
      'MessagesDropped',
      'DeliveriesRecovered',
      'TestEventsSent',
    ]) {
      expect(names).toContain(`SecretsService/${name} ${service}`);
    }
    expect(names).toContain(`SecretsService/DeliveryFailures Reason=timeout ${service}`);
    expect(names).toContain(`SecretsService/RetriesScheduled Channel=scheduler ${service}`);
    // And the dashboard asks for exactly those: the plain metrics by `service`, the others by SEARCH on {dim, service}.
    const dashboard = widgets.flatMap((widget) => describeRows((widget.properties.metrics ?? []) as Row[]));
    // The rotation runner's metric is matched with what it emits below, the sync and audit stream workers' in their rows' tests.
    const plain = dashboard.filter(
      (row) =>
        row.startsWith('SecretsService/') &&
        !row.includes('ApiId=') &&
        !['service=rotation', 'service=syncs', 'service=audit-streams'].some((service) => row.includes(service)),
    );
    for (const row of plain) expect(names).toContain(row.replace(/ (Sum|p\d+)$/, ''));
    for (const [metric, dimension] of [
      ['DeliveryFailures', 'Reason'],
      ['RetriesScheduled', 'Channel'],
    ]) {
      expect(dashboard.join('\n')).toContain(`{SecretsService,${dimension},service} MetricName="${metric}" service="webhook-delivery"`);
      expect(
        names
          .filter((name) => name.startsWith(`SecretsService/${metric} `))
          .every((name) => name.includes(`${dimension}=`) && name.endsWith(service)),
      ).toBe(true);
    }
  });
});

describe('what the rotation runner emits and what the alarm and dashboard read', () => {
  it('matches: namespace, name, the [service] total and the [service, step] lines', () => {
    // Prepare: the runner's EMF writer, its lines caught
    const lines: string[] = [];
    const metrics = makeRotationMetrics({ write: (line) => lines.push(line), env: {} });

    // Act
    metrics.failed('testSecret');

    // Assess: the document the runner prints
    const [document] = lines.map(
      (line) =>
        JSON.parse(line) as {
          _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
        } & Record<string, unknown>,
    );
    const [{ Namespace, Dimensions, Metrics }] = document!._aws.CloudWatchMetrics as [
      { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] },
    ];
    expect({
      Namespace,
      Dimensions,
      names: Metrics.map((metric) => metric.Name),
      service: document!.service,
      step: document!.step,
    }).toEqual({
      Namespace: 'SecretsService',
      Dimensions: [['service'], ['service', 'step']],
      names: ['RotationFailures'],
      service: 'rotation',
      step: 'testSecret',
    });
    // And what the alarm reads: the [service] set with that value; the dashboard's SEARCH: the [service, step] one.
    const alarm = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]).find(
      (candidate) => candidate.Properties.AlarmName === 'SecretsService-test-rotation-failures',
    );
    expect(alarm?.Properties).toMatchObject({
      Namespace,
      MetricName: 'RotationFailures',
      Dimensions: [{ Name: 'service', Value: document!.service }],
    });
    expect(describeRows(graph('Rotation failures (all steps, and by step)')).join('\n')).toContain(
      `{${Namespace},step,service} MetricName="RotationFailures" service="${document!.service}"`,
    );
  });
});
