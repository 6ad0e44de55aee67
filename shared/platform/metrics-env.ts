/** CloudWatch metrics of every feature: one namespace, written as Embedded Metric Format lines on stdout. */
export const METRICS_NAMESPACE = 'SecretsService';

/**
 * The metric of a changed audit entry, as the webhooks' fan-out writes it (shared/webhooks/deliveries/fanout.ts) and the stack
 * alarms on it (lib/service-metrics.ts): in platform/, which both may import.
 */
export const AUDIT_CHANGE_METRIC = {
  namespace: METRICS_NAMESPACE,
  name: 'AuditEntriesChanged',
  dimensions: { service: 'audit-log' },
} as const;

/**
 * The metric of a sync that became failing (24 hours of failed pushes), as the sync worker writes it
 * (shared/syncs/pipeline-wiring.ts) and the stack alarms on it (lib/service-metrics.ts).
 */
export const SYNC_FAILING_METRIC = {
  namespace: METRICS_NAMESPACE,
  name: 'SyncsFailing',
  dimensions: { service: 'syncs' },
} as const;

/**
 * The metrics of audit streams, as the stream worker writes them (functions/audit-stream-worker) and the stack alarms
 * on them (lib/service-metrics.ts): a batch a receiver did not take, and a stream disabled after 3 days of failing.
 */
export const AUDIT_STREAM_FAILED_METRIC = {
  namespace: METRICS_NAMESPACE,
  name: 'AuditStreamBatchesFailed',
  dimensions: { service: 'audit-streams' },
} as const;
export const AUDIT_STREAM_DISABLED_METRIC = {
  namespace: METRICS_NAMESPACE,
  name: 'AuditStreamsDisabled',
  dimensions: { service: 'audit-streams' },
} as const;

/**
 * The line the audit digester (functions/audit-digester/handler.ts) logs for a run that left a workspace undigested,
 * which the stack counts with a metric filter on its log (lib/service-metrics.ts `digestRunsFailed`): one string for
 * both, so a reworded line cannot silence the alarm.
 */
export const DIGEST_RUN_FAILED_LOG = 'audit digester run had failed workspaces';

/** One Embedded Metric Format line counting 1 of `metric` (a changed audit entry, a sync become failing). */
export function countLine(metric: { namespace: string; name: string; dimensions: Record<string, string> }, now = Date.now()): string {
  const { namespace, name, dimensions } = metric;
  const metrics = [{ Namespace: namespace, Dimensions: [Object.keys(dimensions)], Metrics: [{ Name: name, Unit: 'Count' }] }];
  return `${JSON.stringify({ _aws: { Timestamp: now, CloudWatchMetrics: metrics }, ...dimensions, [name]: 1 })}\n`;
}

/** Metrics off: POWERTOOLS_METRICS_DISABLED when set (1, y, yes, t, true, on), else POWERTOOLS_DEV, as Powertools read them. */
export function metricsDisabled(env: NodeJS.ProcessEnv): boolean {
  const truthy = (value: string | undefined) => ['1', 'y', 'yes', 't', 'true', 'on'].includes((value ?? '').trim().toLowerCase());
  return env.POWERTOOLS_METRICS_DISABLED !== undefined ? truthy(env.POWERTOOLS_METRICS_DISABLED) : truthy(env.POWERTOOLS_DEV);
}
