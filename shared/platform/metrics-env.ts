/** CloudWatch metrics of every feature: one namespace, written as Embedded Metric Format lines on stdout. */
export const METRICS_NAMESPACE = 'SecretsService';

/** Metrics off: POWERTOOLS_METRICS_DISABLED when set (1, y, yes, t, true, on), else POWERTOOLS_DEV, as Powertools read them. */
export function metricsDisabled(env: NodeJS.ProcessEnv): boolean {
  const truthy = (value: string | undefined) => ['1', 'y', 'yes', 't', 'true', 'on'].includes((value ?? '').trim().toLowerCase());
  return env.POWERTOOLS_METRICS_DISABLED !== undefined ? truthy(env.POWERTOOLS_METRICS_DISABLED) : truthy(env.POWERTOOLS_DEV);
}
