import { AUDIT_STREAM_CREDENTIAL_CONTEXT } from '../shared/platform/crypto/context.ts';
import { api, type FunctionAccess, IDEMPOTENT_ANSWER_KEY, MAC_KEY } from './api-access.ts';
import { PARTITIONS as P } from './table-access.ts';

/**
 * Audit streams (decisions.md v1.4): a stream is read (GetItem) and the workspace's streams listed (Query) in the
 * workspace partition; create puts the stream with its audit entry under the stream counter (UpdateItem); a PATCH
 * updates the stream's changed fields with its entry; delete removes the stream (DeleteItem) with the counter and its
 * entry. Credentials are sealed under their own context, never opened here; a create's recorded answer (it carries
 * an https stream's signing secret) is sealed and opened under the idempotent answers' context.
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
  keys: [{ actions: ['kms:GenerateDataKey'], contextKeys: AUDIT_STREAM_CREDENTIAL_CONTEXT }, IDEMPOTENT_ANSWER_KEY, MAC_KEY],
};
