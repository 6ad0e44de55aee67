import { loadOnce } from '../platform/on-first-use.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeDigestReads } from './digest-reads.ts';
import { makeDigestStore } from './digest-store.ts';

export type { DigestReads } from './digest-reads.ts';

/**
 * The digests' reads as the audit route group's function builds them once per container. The signer's module (and
 * with it the KMS client) is loaded with the first request for the public key: listing the log or the digests never
 * reads it at cold start; the key is asked once per container.
 */
export function digestReadsOf(deps: { db: Db; pager: Pager; env: Partial<Record<string, string>> }) {
  const publicKeyPem = loadOnce(async () => (await import('./digest-signer-wiring.ts')).digestSignerOf(deps.env).publicKeyPem());
  return makeDigestReads({ store: makeDigestStore(deps.db, deps.pager), publicKeyPem });
}
