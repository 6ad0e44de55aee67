import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeAuditStreamService } from './stream-service.ts';
import { makeAuditStreamStore } from './stream-store.ts';

export type { AuditStreamService } from './stream-service.ts';
/** What the audit streams routes accept and answer, for them and the API description. */
export { auditStreamAnswer, auditStreamCreated, auditStreamTested, streamInputSchema, streamPatchSchema } from './stream-schemas.ts';

/**
 * The audit streams service as its function builds it once per container. The SSRF guard loads on its first use (a
 * create, or a PATCH of a url), and a test's sender on the first test, so a list or a read carries neither.
 */
export function auditStreamServiceOf(deps: {
  config: Config;
  db: Db;
  pager: Pager;
  cipher: Pick<Cipher, 'encrypt' | 'decrypt'>;
  clock: Clock;
}) {
  const { config, db, pager, cipher, clock } = deps;
  const allowPrivateCidrs = config.webhooks.allowPrivateCidrs;
  const loadCheck = loadOnce(async () => (await import('./stream-url-check.ts')).streamUrlCheck(allowPrivateCidrs));
  // A test's send (formats, signing, the guarded request) loads with the first test.
  const loadSender = loadOnce(async () =>
    (await import('./delivery/stream-test-send.ts')).streamTestSender({ cipher, allowPrivateCidrs, clock }),
  );
  return makeAuditStreamService({
    store: makeAuditStreamStore(db, pager),
    cipher,
    clock,
    checkUrl: async (url) => (await loadCheck())(url),
    sendTest: async (workspaceId, stream, entry) => (await loadSender())(workspaceId, stream, entry),
  });
}
