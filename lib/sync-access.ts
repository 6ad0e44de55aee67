import { SYNC_TOKEN_CONTEXT } from '../shared/platform/crypto/context.ts';
import { api, type FunctionAccess, MAC_KEY } from './api-access.ts';
import { PARTITIONS as P } from './table-access.ts';

/**
 * Syncs (decisions.md v1.4): a sync and its environment are read (GetItem) and the workspace's syncs listed (Query)
 * in the workspace partition; create puts the sync with its audit entry under the sync counter (UpdateItem); a PATCH
 * updates the sync's changed fields with its entry; delete removes the sync and its written keys' item (DeleteItem)
 * with the counter and its entry. A GitHub token is sealed under its own context, never opened here.
 * Queueing a full sync needs sqs:SendMessage on the sync queue, granted with the queue's construct.
 */
export const SYNC_ACCESS: FunctionAccess = {
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
  keys: [{ actions: ['kms:GenerateDataKey'], contextKeys: SYNC_TOKEN_CONTEXT }, MAC_KEY],
};
