import { cipherOnFirstUse } from '../../shared/crypto/on-first-use.ts';
import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { logger } from '../../shared/logger.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeSecretService } from '../../shared/services/secrets.ts';
import { makeSecretRoutes } from './routes.ts';
import { makeSecretStore } from '../../shared/store/secrets.ts';
import { makeDeletedSecretStore } from '../../shared/store/deleted-secrets.ts';
import { makeDeletedSecretService } from '../../shared/services/deleted-secrets.ts';
import { makeProjectStore } from '../../shared/store/projects.ts';
import { makeEnvironmentValueStore } from '../../shared/store/environment-values.ts';
import { makeRevealLimiter } from '../../shared/store/reveal-limits.ts';
import { makeDenialStore } from '../../shared/store/denials.ts';
import { makeEnvironmentSearchStore } from '../../shared/store/environment-search.ts';

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
  onDenialAuditFailure: (error) => logger.warn('could not audit a denied attempt', { errorName: (error as { name?: string } | null)?.name }),
});

/** Lambda entry of the secrets route group. */
export const handler = makeRouteGroupHandler(makeSecretRoutes(service, makeDeletedSecretService({ store, clock })), { authenticate, idempotency });
