import { SECRET_VALUE_CONTEXT } from '../shared/platform/crypto/context.ts';
import type { FunctionAccess } from './access.ts';
import { PARTITIONS as P } from './table-access.ts';

/**
 * The rotation runner (functions/rotation/handler.ts, shared/rotation/rotation-runner.ts), one step per message. It
 * reads the secret's rotation item (its lease: GetItem of `ROT` in the secret's partition) and head (GetItem, workspace
 * partition), moves the lease on and ends it (UpdateItem of `ROT`: a one-item transaction, authorised as UpdateItem).
 * Without a function it writes the new value as the secrets writer does (shared/secrets/secret-writer.ts): it reads
 * the key item (GetItem), then one transaction puts head, path and key items (workspace partition), the version
 * and its VersionId claim (the secret's partition) and the `secret.rotate` audit entry; a redelivered step whose token
 * already names a version reads that version and its VersionId item (GetItem) and opens its value to compare (Decrypt).
 * Ending a rotation puts head, path and key items with its `secret.rotation_succeeded|failed` audit entry. Seals the
 * new value under the secret-value context; queues the next step on its own queue. No Query, batch, delete or index.
 */
export const ROTATION_ACCESS: FunctionAccess = {
  table: {
    items: {
      GetItem: [P.workspace, P.secretVersions],
      PutItem: [P.workspace, P.secretVersions, P.audit],
      UpdateItem: [P.secretVersions],
    },
    writesAudit: true,
  },
  keys: [{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: SECRET_VALUE_CONTEXT }],
  sendsRotations: true,
};
