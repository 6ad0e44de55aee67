import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { composeStores } from '../platform/store/compose.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeSecretStore } from '../secrets/index.ts';
import { deletePreparer, versionWritePreparer } from '../secrets/secret-wiring.ts';
import { makeChangeRequestService } from './change-request-service.ts';
import { makeChangeRequestStore } from './change-request-store.ts';

/** The change requests service as its function builds it once per container: its store, the secrets' reads and writes. */
export function changeRequestServiceOf(deps: { config: Config; db: Db; pager: Pager; cipher: Cipher; clock: Clock }) {
  const { config, db, pager, cipher, clock } = deps;
  return makeChangeRequestService({
    store: composeStores(makeChangeRequestStore(db, pager), makeSecretStore(db, pager)),
    cipher,
    clock,
    prepareWrite: versionWritePreparer({ db, cipher }),
    prepareDelete: deletePreparer(db),
    revealLimit: { perMinute: config.revealsPerMinute, workspacePerMinute: config.workspaceRevealsPerMinute },
  });
}
