import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { logger } from '../platform/logger.ts';
import { eventually } from '../platform/prefetch.ts';
import { composeStores } from '../platform/store/compose.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeDenialStore } from '../access/index.ts';
import type { RevealLimiter } from './reveal-limit-store.ts';
import { makeSecretGuard } from './secret-guard.ts';
import { makeSecretReveals } from './secret-reveals.ts';
import { makeSecretMetadataStore } from './secret-metadata-store.ts';
import { makeSecretStore } from './secret-store.ts';

/**
 * The secrets feature's reveals alone, as a function builds them once per container: what the AWS API's
 * GetSecretValue needs at a cold start, without the bulk reveals, writes, lists, search and deletes of the whole service
 * (secret-wiring.ts builds that, over the same stores). Both must share one reveal limiter: they spend the same
 * rate-limit leases.
 */

/** An error's name, all a warning says of it (never its message, which may quote input). */
export const errorName = (error: unknown) => (error as { name?: string } | null)?.name;

/** The stores a reveal of one secret reads and writes (the whole feature's: secret-wiring.ts). */
export function revealStore(db: Db, pager: Pager, limiter: RevealLimiter) {
  return composeStores(makeSecretStore(db, pager, limiter), makeSecretMetadataStore(db), makeDenialStore(db));
}

/** A warning when a denied attempt could not be audited (the caller is refused all the same). */
export const onDenialAuditFailure = (error: unknown) => logger.warn('could not audit a denied attempt', { errorName: errorName(error) });

/** The reveals (secret-reveals.ts) and what a reveal by path reads ahead with the credential. */
export function secretRevealsOf(deps: { config: Config; store: ReturnType<typeof revealStore>; cipher: Cipher; clock: Clock }) {
  const { config, store, cipher, clock } = deps;
  const guard = makeSecretGuard(store, clock, onDenialAuditFailure);
  const reveals = makeSecretReveals(
    {
      store,
      cipher,
      clock,
      revealsPerMinute: config.revealsPerMinute,
      workspaceRevealsPerMinute: config.workspaceRevealsPerMinute,
    },
    guard,
  );
  return {
    ...reveals,
    prefetch: { revealByPath: (workspaceId: string, path: string) => eventually(store.secretByPathKeys(workspaceId, path)) },
  };
}

export type SecretReveals = ReturnType<typeof secretRevealsOf>;
