import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { logger } from '../../shared/platform/logger.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeSecretService } from '../../shared/secrets/secret-service.ts';
import { makeSecretRoutes } from './routes.ts';
import { makeSecretStore } from '../../shared/secrets/secret-store.ts';
import { makeDeletedSecretStore } from '../../shared/secrets/deleted-secret-store.ts';
import { makeDeletedSecretService } from '../../shared/secrets/deleted-secret-service.ts';
import { makeProjectStore } from '../../shared/workspaces/project-store.ts';
import { makeEnvironmentValueStore } from '../../shared/secrets/environment-value-store.ts';
import { makeRevealLimiter } from '../../shared/secrets/reveal-limit-store.ts';
import { makeDenialStore } from '../../shared/access/denial-store.ts';
import { makeEnvironmentSearchStore } from '../../shared/secrets/environment-search-store.ts';

const { config, db, pager, clock, authenticate, idempotency } = apiRuntime();
// One limiter for both reveal routes and the bulk reveal: they spend the same rate-limit leases.
const limiter = makeRevealLimiter(db);
const store = {
  ...makeProjectStore(db, pager),
  ...makeSecretStore(db, pager, limiter),
  ...makeDeletedSecretStore(db, pager),
  ...makeEnvironmentValueStore(db, pager, limiter),
  ...makeDenialStore(db),
  ...makeEnvironmentSearchStore(db, pager),
};

// A warm container that reveals the same version again within 5 minutes makes no KMS call. The KMS client loads on
// the first reveal or write: a list, a search, a delete or a version history never needs it.
const cipher = cipherOnFirstUse(config, 1000);

const service = makeSecretService({
  store,
  cipher,
  clock,
  revealsPerMinute: config.revealsPerMinute,
  workspaceRevealsPerMinute: config.workspaceRevealsPerMinute,
  onPurgeFailure: (secretId, error) =>
    logger.warn('secret versions left to purge', { secretId, errorName: (error as { name?: string } | null)?.name }),
  onDenialAuditFailure: (error) =>
    logger.warn('could not audit a denied attempt', { errorName: (error as { name?: string } | null)?.name }),
});

/** Lambda entry of the secrets route group. */
export const handler = makeRouteGroupHandler(makeSecretRoutes(service, makeDeletedSecretService({ store, clock })), {
  authenticate,
  idempotency,
});
