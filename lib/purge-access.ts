import type { FunctionAccess } from './access.ts';
import { INDEX_PARTITIONS as INDEX, PARTITIONS as P } from './table-access.ts';

/**
 * The secret purger (shared/secrets/purge-service.ts, purge-store.ts): finds the deleted secrets due on GSI2 `PURGE`,
 * reads each one's deleted record (GetItem) and its partition's keys (Query), deletes its versions (BatchWriteItem),
 * then its list item (`DEL#…` in the workspace partition) and record in one transaction of two deletes (DeleteItem:
 * no batch, so no put, on the workspace partition). Writes nothing else, no audit entry (the delete audited its
 * purge date), and never opens a value: no KMS.
 */
export const SECRET_PURGER_ACCESS: FunctionAccess = {
  table: {
    items: {
      GetItem: [P.secretVersions],
      Query: [P.secretVersions],
      BatchWriteItem: [P.secretVersions],
      DeleteItem: [P.workspace, P.secretVersions],
    },
    indexQueries: { GSI2: [INDEX.pendingPurges] },
  },
};
