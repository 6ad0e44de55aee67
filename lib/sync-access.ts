import { SECRET_VALUE_CONTEXT, SYNC_TOKEN_CONTEXT } from '../shared/platform/crypto/context.ts';
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
  sendsSyncs: true,
};

/**
 * The sync worker (functions/sync-worker, shared/syncs/pipeline/): reads the sync (GetItem) and takes its lease
 * (UpdateItem of the lease attributes alone); loads the environment's values as the secrets service does (the
 * environment and the signed cursor key: GetItem; its path items: Query), counts
 * the page on the two reveal counters and puts each reveal's audit entry (conditional PutItem); resolving references
 * reads heads by path (BatchGetItem). A push ends in one transaction: the sync's outcome and the lease released
 * (UpdateItem of those attributes), the written keys' item put or deleted, and the service's `sync.update` entry.
 * Opens secret values and the sync's GitHub token; seals nothing. Queues its retries on the sync queue.
 */
export const SYNC_WORKER_ACCESS: FunctionAccess = {
  table: {
    items: {
      GetItem: [P.workspace, P.cursorKey],
      Query: [P.workspace],
      BatchGetItem: [P.workspace],
      PutItem: [P.workspace, P.audit, P.cursorKey],
      DeleteItem: [P.workspace],
      UpdateItem: [P.credentialRevealCounter, P.workspaceRevealCounter],
    },
    attributeUpdates: [
      {
        partitions: [P.workspace],
        attributes: ['leaseOwner', 'leaseUntil', 'status', 'lastSyncedAt', 'lastError', 'failingSince', 'pushedThrough'],
      },
    ],
    writesAudit: true,
  },
  keys: [
    { actions: ['kms:Decrypt'], contextKeys: SECRET_VALUE_CONTEXT },
    { actions: ['kms:Decrypt'], contextKeys: SYNC_TOKEN_CONTEXT },
  ],
  sendsSyncs: true,
};
