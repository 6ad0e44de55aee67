import { METRICS_NAMESPACE, metricsDisabled } from '../platform/metrics-env.ts';

/**
 * `RotationFailures` (decisions.md v1.3): one Embedded Metric Format line per failed rotation, dimension `step`
 * (the stack's alarm sums it over every step). Nothing about the secret or the error: those are in its audit entry.
 */
export function makeRotationMetrics(options: { write?: (line: string) => void; env?: NodeJS.ProcessEnv } = {}) {
  const disabled = metricsDisabled(options.env ?? process.env);
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  return {
    failed(step: string) {
      if (disabled) return;
      const body = {
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            {
              Namespace: METRICS_NAMESPACE,
              Dimensions: [['service'], ['service', 'step']],
              Metrics: [{ Name: 'RotationFailures', Unit: 'Count' }],
            },
          ],
        },
        service: 'rotation',
        step,
        RotationFailures: 1,
      };
      write(`${JSON.stringify(body)}\n`);
    },
  };
}
