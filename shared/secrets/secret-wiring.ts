import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { logger } from '../platform/logger.ts';
import { composeStores } from '../platform/store/compose.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeProjectStore } from '../workspaces/project-store.ts';
import { makeDeletedSecretStore } from './deleted-secret-store.ts';
import { makeEnvironmentValueStore } from './environment-value-store.ts';
import { makeEnvironmentSearchStore } from './environment-search-store.ts';
import { makeReferenceIndexStore } from '../references/reference-index.ts';
import { makeRevealLimiter, type RevealLimiter } from './reveal-limit-store.ts';
import { errorName, onDenialAuditFailure, revealStore } from './reveal-wiring.ts';
import { makeDeletedSecretService } from './deleted-secret-service.ts';
import { makeSecretService } from './secret-service.ts';
import { makeRotationStore, rotationViewOf } from '../rotation/index.ts';

export { errorName } from './reveal-wiring.ts';
/**
 * A version write and a recoverable delete prepared without sending them (their transaction items and audit entries),
 * for a change request's merge, which commits several keys' changes in one transaction: stored as any write stores them.
 */
export { versionWritePreparer } from './secret-version-writes.ts';
export { deletePreparer } from './secret-delete-items.ts';

/**
 * The secrets service as a function builds it once per container: the REST secrets group and the AWS API, so both
 * reveal through one limiter (the same rate-limit leases) and log the same warnings.
 */
export function secretsStore(db: Db, pager: Pager, limiter: RevealLimiter = makeRevealLimiter(db)) {
  return composeStores(
    revealStore(db, pager, limiter),
    makeProjectStore(db, pager),
    makeEnvironmentValueStore(db, pager, limiter),
    makeDeletedSecretStore(db, pager),
    makeEnvironmentSearchStore(db, pager),
    makeRotationStore(db),
    makeReferenceIndexStore(db),
  );
}

export function deletedSecretServiceOf(deps: { store: ReturnType<typeof secretsStore>; clock: Clock }) {
  return makeDeletedSecretService(deps);
}

export function secretServiceOf(deps: { config: Config; store: ReturnType<typeof secretsStore>; cipher: Cipher; clock: Clock }) {
  return makeSecretService({
    store: deps.store,
    cipher: deps.cipher,
    clock: deps.clock,
    place: deps.config.aws,
    revealsPerMinute: deps.config.revealsPerMinute,
    workspaceRevealsPerMinute: deps.config.workspaceRevealsPerMinute,
    onPurgeFailure: (secretId, error) => logger.warn('secret versions left to purge', { secretId, errorName: errorName(error) }),
    onDenialAuditFailure,
    rotationOf: rotationViewOf(deps.store),
  });
}
