import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { makeAccessKeyStore } from './access-keys.ts';
import { makeLoginStore } from './logins.ts';
import { makeAuditStore } from './audit.ts';
import { makeDeliveryStore } from './deliveries.ts';
import { makeRecoveryApiStore, makeRecoverySweeperStore } from './delivery-recovery.ts';
import { makeRecoveryWorkerStore } from './delivery-recovery-worker.ts';
import { makeStatsRollupStore } from './delivery-rollup.ts';
import { makeDeliveryStatsReader } from './delivery-stats-read.ts';
import { makeEnvironmentValueStore } from './environment-values.ts';
import { makeWebhookStore } from './webhooks.ts';
import { makeCursorKeyLoader } from './cursor-key.ts';
import { makePager } from './pager.ts';
import type { Db } from './send.ts';
import { makeProjectStore } from './projects.ts';
import { makeRevealLimiter } from './reveal-limits.ts';
import { makeSecretStore } from './secrets.ts';
import { makeDeletedSecretStore } from './deleted-secrets.ts';
import { makeDenialStore } from './denials.ts';
import { makeEnvironmentSearchStore } from './environment-search.ts';
import { makeWorkspaceStore } from './workspaces.ts';

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
    ...makeDeletedSecretStore(db, pager),
    ...makeDenialStore(db),
    ...makeEnvironmentSearchStore(db, pager),
    ...makeEnvironmentValueStore(db, pager, limiter),
    ...makeAccessKeyStore(db, pager),
    ...makeLoginStore(db),
    ...makeWebhookStore(db, pager),
    ...makeDeliveryStore(db, pager),
    ...makeRecoveryApiStore(db),
    ...makeRecoveryWorkerStore(db),
    ...makeRecoverySweeperStore(db),
    ...makeDeliveryStatsReader(db),
    ...makeStatsRollupStore(db),
  };
}

export type Store = ReturnType<typeof makeStore>;
