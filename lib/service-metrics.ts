import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { MathExpression, Metric, SearchExpression, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ROUTE_GROUPS } from '../shared/platform/routes.ts';
import { AUDIT_CHANGE_METRIC, DIGEST_RUN_FAILED_LOG, SYNC_FAILING_METRIC } from '../shared/platform/metrics-env.ts';

/** The worker's EMF namespace and service dimension (shared/webhooks/deliveries/metrics.ts `makeDeliveryMetrics`). */
export const METRICS_NAMESPACE = 'SecretsService';
export const DELIVERY_SERVICE = 'webhook-delivery';
/** The rotation runner's service dimension (shared/rotation/rotation-metrics.ts `makeRotationMetrics`). */
export const ROTATION_SERVICE = 'rotation';

/** The reveal routes (shared/platform/routes.ts), as they appear in the access log's `routeKey`: by id, by path, and loading an environment. */
export const REVEAL_ROUTE_KEYS = [
  'POST /api/v1/secrets/{secretId}/reveal',
  'POST /api/v1/reveal',
  'POST /api/v1/environments/{envId}/secrets/reveal',
] as const;

/**
 * A worker metric published with only the default `service` dimension (the worker's EMF writer puts every metric
 * without a dimension of its own under `[service]`): DeliveryAttempts, DeliverySuccesses, AttemptLatency,
 * DeliveriesExhausted, EndpointsAutoDisabled, MessagesDropped.
 */
export function deliveryMetric(metricName: string, statistic: string = Stats.SUM, period = Duration.minutes(5)): Metric {
  return new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: DELIVERY_SERVICE }, statistic, period });
}

/**
 * A worker metric published through `singleMetric()` with one extra dimension (DeliveryFailures by `Reason`,
 * RetriesScheduled by `Channel`): each value of the dimension is its own metric, so the dashboard finds them all
 * with a SEARCH (one line per value).
 */
export function deliveryMetricsBy(metricName: string, dimension: string, period = Duration.minutes(5)): SearchExpression {
  return serviceMetricsBy(DELIVERY_SERVICE, metricName, dimension, period);
}

/** `deliveryMetricsBy` for any service's EMF metric with one extra dimension: one line per value, found by SEARCH. */
function serviceMetricsBy(service: string, metricName: string, dimension: string, period: Duration): SearchExpression {
  return new SearchExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${dimension},service} MetricName="${metricName}" service="${service}"', 'Sum', ${period.toSeconds()})`,
    // A CloudWatch dynamic label: each line is named by its dimension value (`timeout`, `sqs`, ...).
    label: `\${PROP('Dim.${dimension}')}`,
    period,
  });
}

/** The total over every value of the extra dimension, as one line (and one number to alarm on if need be). */
export function deliveryMetricTotal(metricName: string, dimension: string, label: string, period = Duration.minutes(5)): MathExpression {
  return new MathExpression({
    expression: `SUM(${deliveryMetricsBy(metricName, dimension, period).expression})`,
    usingMetrics: {},
    label,
    period,
  });
}

/**
 * Audit entries overwritten or removed on the table, as the fan-out counts them from the stream
 * (shared/webhooks/deliveries/fanout.ts `auditChangeOf`): the service never does either, so any is an alarm.
 */
export function auditEntriesChanged(period = Duration.minutes(5)): Metric {
  return countedMetric(AUDIT_CHANGE_METRIC, period);
}

/**
 * One of the counters a function writes with `countLine` (shared/platform/metrics-env.ts: a changed audit entry, a
 * failing sync, an audit stream's failed batch or disabling), summed over `period`.
 */
export function countedMetric(metric: { namespace: string; name: string; dimensions: Record<string, string> }, period: Duration): Metric {
  const { namespace, name, dimensions } = metric;
  return new Metric({ namespace, metricName: name, dimensionsMap: { ...dimensions }, statistic: Stats.SUM, period });
}

/**
 * Failed rotations (decisions.md v1.3), summed over every step: the runner publishes `RotationFailures` under the
 * dimension sets `[service]` and `[service, step]`, and this is the first, one metric to alarm on.
 */
export function rotationFailures(period = Duration.minutes(5)): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: 'RotationFailures',
    dimensionsMap: { service: ROTATION_SERVICE },
    statistic: Stats.SUM,
    period,
  });
}

/** Failed rotations by the step that failed (`generate`, `createSecret`, … `finishSecret`), one line each. */
export function rotationFailuresByStep(period = Duration.minutes(5)): SearchExpression {
  return serviceMetricsBy(ROTATION_SERVICE, 'RotationFailures', 'step', period);
}

/** Syncs that became failing (the sync worker's `SyncsFailing`, shared/platform/metrics-env.ts). */
export function syncsFailing(period = Duration.minutes(5)): Metric {
  return countedMetric(SYNC_FAILING_METRIC, period);
}

/** Delivered / attempted, in percent; no point where nothing was attempted. */
export function deliverySuccessRate(period = Duration.minutes(5)): MathExpression {
  return new MathExpression({
    expression: 'IF(attempts > 0, 100 * FILL(successes, 0) / attempts)',
    usingMetrics: {
      attempts: deliveryMetric('DeliveryAttempts', Stats.SUM, period),
      successes: deliveryMetric('DeliverySuccesses', Stats.SUM, period),
    },
    label: 'Success rate (%)',
    period,
  });
}

/** Share of API requests answered 5xx, in percent, once there are enough requests for a share to mean something. */
export function apiServerErrorRate(httpApi: HttpApi, minimumRequests: number, period = Duration.minutes(5)): MathExpression {
  return new MathExpression({
    expression: `IF(requests >= ${minimumRequests}, 100 * FILL(errors, 0) / requests, 0)`,
    usingMetrics: {
      errors: httpApi.metricServerError({ statistic: Stats.SUM, period }),
      requests: httpApi.metricCount({ statistic: Stats.SUM, period }),
    },
    label: '5xx rate (%)',
    period,
  });
}

/**
 * 401 answers of every route, from the API access log (API Gateway has no metric for 4xx by status): a spike means
 * someone is trying tokens, or a deployed client lost its credential.
 */
export function unauthorizedAnswers(scope: Construct, props: { accessLogs: ILogGroup; httpApi: HttpApi }): Metric {
  return accessLogCount(scope, 'UnauthorizedAnswers', FilterPattern.stringValue('$.status', '=', '401'), props, Duration.minutes(5));
}

/** A count of the API access log's lines that match `pattern`, by API id (so two stages never mix), summed per `period`. */
function accessLogCount(
  scope: Construct,
  metricName: string,
  filterPattern: ReturnType<typeof FilterPattern.stringValue>,
  props: { accessLogs: ILogGroup; httpApi: HttpApi },
  period: Duration,
): Metric {
  new MetricFilter(scope, metricName, {
    logGroup: props.accessLogs,
    metricNamespace: METRICS_NAMESPACE,
    metricName,
    metricValue: '1',
    dimensions: { ApiId: '$.apiId' },
    filterPattern,
  });
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { ApiId: props.httpApi.apiId },
    statistic: Stats.SUM,
    period,
  });
}

/** The login route, as it appears in the access log's `routeKey`. */
export const LOGIN_ROUTE_KEY: (typeof ROUTE_GROUPS)['auth'][number] = 'POST /api/v1/auth/login';

/**
 * Logins answered 429 RATE_LIMITED, per minute, from the API access log (`LoginsRateLimited`, by API id): a login
 * past its access key's budgets (10 refused per source address, 60 successful, a clock minute) is not audited, so
 * this is where such logins show. API Gateway's own throttling of the route (`loginRouteRateLimit`) answers 429 too
 * and counts here as well.
 */
export function loginsRateLimited(scope: Construct, props: { accessLogs: ILogGroup; httpApi: HttpApi }): Metric {
  const pattern = FilterPattern.all(
    FilterPattern.stringValue('$.routeKey', '=', LOGIN_ROUTE_KEY),
    FilterPattern.stringValue('$.status', '=', '429'),
  );
  return accessLogCount(scope, 'LoginsRateLimited', pattern, props, Duration.minutes(1));
}

/**
 * Reveals per minute, from the API access log: there is no application metric for them, and the access log sees
 * every reveal whichever credential made it, including the ones the rate limit refused. The filter counts access
 * log lines of the two reveal routes, by outcome, with the API id as dimension so two stages never mix.
 */
export class RevealMetrics extends Construct {
  /** Reveals answered 200. */
  readonly succeeded: Metric;
  /** Reveals refused with 429 RATE_LIMITED. */
  readonly rateLimited: Metric;

  constructor(scope: Construct, id: string, props: { accessLogs: ILogGroup; httpApi: HttpApi }) {
    super(scope, id);
    this.succeeded = this.countReveals('Reveals', '200', props);
    this.rateLimited = this.countReveals('RevealsRateLimited', '429', props);
  }

  private countReveals(metricName: string, status: string, props: { accessLogs: ILogGroup; httpApi: HttpApi }): Metric {
    new MetricFilter(this, metricName, {
      logGroup: props.accessLogs,
      metricNamespace: METRICS_NAMESPACE,
      metricName,
      metricValue: '1',
      dimensions: { ApiId: '$.apiId' },
      filterPattern: FilterPattern.all(
        FilterPattern.any(...REVEAL_ROUTE_KEYS.map((routeKey) => FilterPattern.stringValue('$.routeKey', '=', routeKey))),
        FilterPattern.stringValue('$.status', '=', status),
      ),
    });
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { ApiId: props.httpApi.apiId },
      statistic: Stats.SUM,
      period: Duration.minutes(1),
    });
  }
}

/**
 * Digester runs that left a workspace's digest unmade, from the digester's log (`AuditDigestRunsFailed`): such a run
 * ends normally, so the function's Errors metric misses it. No dimension, as SyncsFailing has none: two stages in one
 * account share it.
 */
export function digestRunsFailed(scope: Construct, logGroup: ILogGroup, period = Duration.hours(1)): Metric {
  new MetricFilter(scope, 'AuditDigestRunsFailed', {
    logGroup,
    metricNamespace: METRICS_NAMESPACE,
    metricName: 'AuditDigestRunsFailed',
    metricValue: '1',
    filterPattern: FilterPattern.stringValue('$.message', '=', DIGEST_RUN_FAILED_LOG),
  });
  return new Metric({ namespace: METRICS_NAMESPACE, metricName: 'AuditDigestRunsFailed', statistic: Stats.SUM, period });
}
