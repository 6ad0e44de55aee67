/**
 * What other features use of audit streams (decisions.md v1.4, "Audit streams and tamper evidence"): their
 * vocabulary, the reader of a workspace's streams, and the stream fan-out's dispatch of audit entries to them. The service is
 * built by the audit streams function through its wiring. Entry modules besides this file (architecture.test.ts
 * reads these lines, as a package's `exports` map):
 * @entry stream-wiring.ts the service as functions/audit-streams builds it, and what its routes accept and answer
 * @entry delivery/stream-worker.ts the stream worker as its function builds it, and the opener of a stream's credentials it is given
 */
export {
  AUDIT_STREAM_STATUSES,
  AUDIT_STREAM_TYPES,
  DATADOG_SITES,
  type AuditStreamRecord,
  type AuditStreamStatus,
  type AuditStreamType,
  type StreamCredential,
} from './stream-records.ts';
export { auditStreamOfItem, makeAuditStreamReader, MAX_AUDIT_STREAMS, type AuditStreamReader } from './stream-store.ts';
export type { AuditStreamService } from './stream-service.ts';
export { auditStreamQueueUrl, streamDispatchOf } from './delivery/stream-fanout.ts';
export { MAX_STREAM_HEADERS } from './stream-schemas.ts';
