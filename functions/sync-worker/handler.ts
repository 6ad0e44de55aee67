import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { syncTokenContext } from '../../shared/platform/crypto/context.ts';
import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { makeSqsClient } from '../../shared/platform/clients/sqs.ts';
import { secretServiceOf, secretsStore } from '../../shared/secrets/secret-wiring.ts';
import { syncWorkerOf } from '../../shared/syncs/worker-wiring.ts';

/**
 * The sync worker's function (decisions.md v1.4, "Syncs"): consumes the sync queue, one push of one sync per message
 * (shared/syncs/pipeline/sync-push.ts), revealing through the secrets service as any reveal (counted, resolved,
 * audited before the value leaves) and pushing through the destination the sync names.
 */

const { config, db, pager, clock } = runtime();
const store = secretsStore(db, pager);
const cipher = cipherOnFirstUse(config, 100);
const secrets = secretServiceOf({ config, store, cipher, clock });

/** Lambda entry (SQS event source, ReportBatchItemFailures). */
export const handler = syncWorkerOf({
  db,
  sqs: makeSqsClient({ endpoint: config.webhooks.sqsEndpoint }),
  clock,
  log: logger,
  timeScale: config.webhooks.timeScale,
  allowPrivateCidrs: config.webhooks.allowPrivateCidrs,
  load: (principal, environmentId, input, page) => secrets.revealEnvironment(principal, environmentId, input, page),
  openToken: async (workspaceId, sync) =>
    sync.sealedToken ? cipher.decrypt(sync.sealedToken, syncTokenContext(workspaceId, sync.id)) : undefined,
});
