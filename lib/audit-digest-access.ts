import type { FunctionAccess } from './access.ts';
import { INDEX_PARTITIONS as INDEX, PARTITIONS as P } from './table-access.ts';

/**
 * The audit digester (shared/audit-digests/digest-store.ts): lists the workspaces on GSI2 `WORKSPACES`, reads each
 * workspace's last digest and the entries it covers (Query of the audit partition: a digest is an item there, beside
 * the entries), and puts the new digest item there, conditionally (never over another). No GetItem, no update, no
 * delete, nothing of another partition, and not the secrets key: it signs with the digest key alone
 * (lib/audit-digests.ts grants it, outside the table's access). Its put lands in an audit partition, so it is an audit
 * writer; the Denies every role carries still forbid it to change or remove an entry.
 */
export const AUDIT_DIGESTER_ACCESS: FunctionAccess = {
  table: {
    items: { Query: [P.audit], PutItem: [P.audit] },
    indexQueries: { GSI2: [INDEX.allWorkspaces] },
    writesAudit: true,
  },
};
