import { PROPOSED_VALUE_CONTEXT, SECRET_VALUE_CONTEXT } from '../shared/platform/crypto/context.ts';
import { api, type FunctionAccess, MAC_KEY } from './api-access.ts';
import { INDEX_PARTITIONS as INDEX, PARTITIONS as P } from './table-access.ts';

/**
 * Change requests: the request, its environment and each key's item are read (GetItem) in the workspace partition; open
 * puts the request with its audit entry; a review or close replaces it with its entry. A merge is one transaction: the
 * request, its entry, one audit item per action of the merged writes, and per change what a secret write puts (head,
 * path and key items, the version in the secret's partition) or a delete writes (its record over the head, its marker
 * over the path, the key item removed, the list item put). A proposed value's reveal counts on the two reveal counters
 * and puts its entry. Lists read the environment's requests on GSI1. Proposed values are sealed and opened under their
 * own context; a merge seals each new version under the secret value's context and opens none.
 */
export const CHANGE_REQUEST_ACCESS: FunctionAccess = {
  table: api({
    items: {
      GetItem: [P.workspace],
      PutItem: [P.workspace, P.secretVersions, P.audit],
      UpdateItem: [P.credentialRevealCounter, P.workspaceRevealCounter],
      // A merged delete removes the key item (and puts its record, marker and list item in the workspace partition).
      DeleteItem: [P.workspace],
    },
    indexQueries: { GSI1: [INDEX.changeRequests] },
    writesAudit: true,
  }),
  keys: [
    { actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: PROPOSED_VALUE_CONTEXT },
    { actions: ['kms:GenerateDataKey'], contextKeys: SECRET_VALUE_CONTEXT },
    MAC_KEY,
  ],
};
