import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeAccessKeyStore } from './access/access-key-store.ts';
import { makeLoginStore } from './access/login-store.ts';
import { makeAuditStore } from './audit/audit-store.ts';
import { makeDeliveryApiStore, makeDeliveryWorkerStore } from './webhooks/deliveries/delivery-store.ts';
import { makeDeliveryFanoutStore, makeDeliverySweeperStore } from './webhooks/deliveries/delivery-pipeline-store.ts';
import { makeRecoveryApiStore, makeRecoverySweeperStore } from './webhooks/recovery/recovery-store.ts';
import { makeRecoveryWorkerStore } from './webhooks/recovery/recovery-worker-store.ts';
import { makeStatsRollupStore } from './webhooks/stats/stats-rollup-store.ts';
import { makeDeliveryStatsReader } from './webhooks/stats/delivery-stats-read-store.ts';
import { makeEnvironmentValueStore } from './secrets/environment-value-store.ts';
import { makeEndpointApiStore } from './webhooks/endpoints/endpoint-store.ts';
import { makeEndpointFanoutStore, makeEndpointWorkerStore } from './webhooks/endpoints/endpoint-pipeline-store.ts';
import { makeCursorKeyLoader } from './platform/store/cursor-key.ts';
import { makePager } from './platform/store/pager.ts';
import type { Db } from './platform/store/send.ts';
import { makeProjectStore } from './workspaces/project-store.ts';
import { makeRevealLimiter } from './secrets/reveal-limit-store.ts';
import { makeSecretStore } from './secrets/secret-store.ts';
import { makeSecretMetadataStore } from './secrets/secret-metadata-store.ts';
import { makeDeletedSecretStore } from './secrets/deleted-secret-store.ts';
import { makeDenialStore } from './access/denial-store.ts';
import { makeEnvironmentSearchStore } from './secrets/environment-search-store.ts';
import { makeWorkspaceStore } from './workspaces/workspace-store.ts';
import { makeRotationStore } from './rotation/rotation-store.ts';

/** The whole data layer over one table; services take only the methods they use (`Pick<Store, …>`). */
export function makeStore(doc: DynamoDBDocumentClient, tableName: string) {
  const db: Db = { doc, tableName };
  const pager = makePager(db, makeCursorKeyLoader(db));
  // One limiter per store, so the single and the bulk reveal spend the same leases.
  const limiter = makeRevealLimiter(db);
  return {
    ...makeWorkspaceStore(db),
    ...makeProjectStore(db, pager),
    ...makeAuditStore(pager),
    ...makeSecretStore(db, pager, limiter),
    ...makeSecretMetadataStore(db),
    ...makeDeletedSecretStore(db, pager),
    ...makeDenialStore(db),
    ...makeEnvironmentSearchStore(db, pager),
    ...makeRotationStore(db),
    ...makeEnvironmentValueStore(db, pager, limiter),
    ...makeAccessKeyStore(db, pager),
    ...makeLoginStore(db),
    ...makeEndpointApiStore(db, pager),
    ...makeEndpointFanoutStore(db),
    ...makeEndpointWorkerStore(db),
    ...makeDeliveryApiStore(db, pager),
    ...makeDeliveryFanoutStore(db),
    ...makeDeliveryWorkerStore(db),
    ...makeDeliverySweeperStore(db),
    ...makeRecoveryApiStore(db),
    ...makeRecoveryWorkerStore(db),
    ...makeRecoverySweeperStore(db),
    ...makeDeliveryStatsReader(db),
    ...makeStatsRollupStore(db),
  };
}

export type Store = ReturnType<typeof makeStore>;
