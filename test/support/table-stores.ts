import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeLoginStore } from '../../shared/access/login-store.ts';
import { makeAccessKeyStore } from '../../shared/access/access-key-store.ts';
import { makeDenialStore } from '../../shared/access/index.ts';
import { makeAuditStore } from '../../shared/audit/index.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import { makeCursorKeyLoader } from '../../shared/platform/store/cursor-key.ts';
import { makePager } from '../../shared/platform/store/pager.ts';
import { makeRotationStore } from '../../shared/rotation/index.ts';
import { makeDeletedSecretStore } from '../../shared/secrets/deleted-secret-store.ts';
import { makeEnvironmentSearchStore } from '../../shared/secrets/environment-search-store.ts';
import { makeReferenceIndexStore } from '../../shared/references/reference-index.ts';
import { makeEnvironmentValueStore } from '../../shared/secrets/environment-value-store.ts';
import { makeRevealLimiter, makeSecretMetadataStore, makeSecretStore } from '../../shared/secrets/index.ts';
import { makeWorkspaceStore } from '../../shared/workspaces/index.ts';
import { makeProjectStore } from '../../shared/workspaces/project-store.ts';
import { webhookStores } from './webhook-stores.ts';

/**
 * Every feature's stores over one table, composed as a function composes its own (a method two stores define throws):
 * for the tests that set up or read items of any feature (the integration suite's localStore) and the check of every
 * store method's writes (test/unit/platform/store-conditions.test.ts). No function builds this: each composes only the
 * stores its services ask for. Factories come through each feature's index.ts where it exports them; the secrets and
 * access stores it does not export (they would reach cold starts that must not hold them) come by their modules.
 */
export function tableStores(doc: DynamoDBDocumentClient, tableName: string) {
  const db = { doc, tableName };
  const pager = makePager(db, makeCursorKeyLoader(db));
  // One limiter, as a function has: the single and the bulk reveal spend the same leases.
  const limiter = makeRevealLimiter(db);
  return composeStores(
    makeWorkspaceStore(db),
    makeProjectStore(db, pager),
    makeAuditStore(pager),
    makeSecretStore(db, pager, limiter),
    makeSecretMetadataStore(db),
    makeDeletedSecretStore(db, pager),
    makeDenialStore(db),
    makeEnvironmentSearchStore(db, pager),
    makeRotationStore(db),
    makeReferenceIndexStore(db),
    makeEnvironmentValueStore(db, pager, limiter),
    makeAccessKeyStore(db, pager),
    makeLoginStore(db),
    webhookStores(db, pager),
  );
}
