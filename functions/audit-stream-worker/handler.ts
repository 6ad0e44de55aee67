import { auditStreamQueueUrl } from '../../shared/audit-streams/index.ts';
import { streamOpener, streamWorkerOf } from '../../shared/audit-streams/delivery/stream-worker.ts';
import { makeSqsClient } from '../../shared/platform/clients/sqs.ts';
import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { logger } from '../../shared/platform/logger.ts';
import { AUDIT_STREAM_DISABLED_METRIC, AUDIT_STREAM_FAILED_METRIC, countLine, metricsDisabled } from '../../shared/platform/metrics-env.ts';
import { runtime } from '../../shared/platform/runtime.ts';

/**
 * The audit stream worker's function (decisions.md v1.4, "Audit streams and tamper evidence"): consumes the audit
 * stream queue, sends each stream's entries in batches to its receiver, queues failed batches again on the webhook
 * schedule and disables a stream failing for 3 days (shared/audit-streams/delivery/).
 */

const { config, db, clock } = runtime();
// A delivery opens its stream's credentials (KMS Decrypt under the stream credential context): the client loads then.
const cipher = cipherOnFirstUse(config, 100);
const metrics = !metricsDisabled(process.env);
const count = (metric: typeof AUDIT_STREAM_FAILED_METRIC | typeof AUDIT_STREAM_DISABLED_METRIC) => () => {
  if (metrics) process.stdout.write(countLine(metric));
};

/** Lambda entry (SQS event source, ReportBatchItemFailures). */
export const handler = streamWorkerOf({
  db,
  sqs: makeSqsClient({ endpoint: config.webhooks.sqsEndpoint }),
  queueUrl: auditStreamQueueUrl() ?? '',
  clock,
  log: logger,
  timeScale: config.webhooks.timeScale,
  allowPrivateCidrs: config.webhooks.allowPrivateCidrs,
  openCredentials: streamOpener(cipher),
  onFailed: count(AUDIT_STREAM_FAILED_METRIC),
  onDisabled: count(AUDIT_STREAM_DISABLED_METRIC),
});
