import type { FunctionAccess } from './access.ts';
import { INDEX_PARTITIONS as INDEX, PARTITIONS as P } from './table-access.ts';

/**
 * The secret purger (shared/secrets/purge-service.ts, purge-store.ts): finds the deleted secrets due on GSI2 `PURGE`,
 * reads each one's deleted record (GetItem: at its head's key in the workspace partition; one from before v1.4 in the
 * secret's partition) and its partition's keys (Query), deletes its versions (BatchWriteItem), then its list item
 * (`DEL#…`), edges and record in one transaction of deletes (DeleteItem: no batch, so no put, on the workspace
 * partition). Writes nothing else, no audit entry (the delete audited its
 * purge date), and never opens a value: no KMS.
 */
export const SECRET_PURGER_ACCESS: FunctionAccess = {
  table: {
    items: {
      GetItem: [P.workspace, P.secretVersions],
      Query: [P.secretVersions],
      BatchWriteItem: [P.secretVersions],
      DeleteItem: [P.workspace, P.secretVersions],
    },
    indexQueries: { GSI2: [INDEX.pendingPurges] },
  },
};
