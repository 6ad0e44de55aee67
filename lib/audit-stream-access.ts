import { AUDIT_STREAM_CREDENTIAL_CONTEXT } from '../shared/platform/crypto/context.ts';
import { api, type FunctionAccess, IDEMPOTENT_ANSWER_KEY, MAC_KEY } from './api-access.ts';
import { PARTITIONS as P } from './table-access.ts';

/**
 * Audit streams (decisions.md v1.4): a stream is read (GetItem) and the workspace's streams listed (Query) in the
 * workspace partition; create puts the stream with its audit entry under the stream counter (UpdateItem); a PATCH
 * updates the stream's changed fields with its entry; delete removes the stream (DeleteItem) with the counter and its
 * entry; a test puts its audit entry (PutItem). Credentials are sealed under their own context and opened under it
 * only by a test's send; a create's recorded answer (it carries an https stream's signing secret) is sealed and
 * opened under the idempotent answers' context.
 */
export const AUDIT_STREAM_ACCESS: FunctionAccess = {
  table: api({
    items: {
      GetItem: [P.workspace],
      Query: [P.workspace],
      PutItem: [P.workspace, P.audit],
      UpdateItem: [P.workspace],
      DeleteItem: [P.workspace],
    },
    writesAudit: true,
  }),
  keys: [{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: AUDIT_STREAM_CREDENTIAL_CONTEXT }, IDEMPOTENT_ANSWER_KEY, MAC_KEY],
};

/**
 * The audit stream worker (functions/audit-stream-worker, shared/audit-streams/delivery/): reads the stream (GetItem)
 * and writes its delivery health (UpdateItem of those attributes alone); disabling a stream failing for 3 days is
 * one transaction of that update (status, updatedAt and revision too) and its system audit entry (PutItem). Opens a
 * stream's credentials; seals nothing. Queues failed batches again on the audit stream queue. The cursor-signing key
 * its runtime's pager could read is never asked for: no grant.
 */
export const AUDIT_STREAM_WORKER_ACCESS: FunctionAccess = {
  table: {
    items: { GetItem: [P.workspace], PutItem: [P.audit] },
    attributeUpdates: [
      {
        partitions: [P.workspace],
        attributes: ['lastDeliveredAt', 'failingSince', 'lastError', 'status', 'updatedAt', 'revision'],
      },
    ],
    writesAudit: true,
  },
  keys: [{ actions: ['kms:Decrypt'], contextKeys: AUDIT_STREAM_CREDENTIAL_CONTEXT }],
  sendsAuditStreams: true,
};
