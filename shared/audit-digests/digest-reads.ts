import { assertMayReadAudit } from '../access/index.ts';
import type { Principal } from '../platform/principal.ts';
import type { PageRequest } from '../platform/store/query.ts';
import type { DigestStore } from './digest-store.ts';

/** The largest time a digest list may name (the end of what an ISO timestamp the API takes can say). */
const END_OF_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The digests' reads of the audit route group: the workspace's digests (admins, as the log they cover) and the key
 * that verifies them. The public key is the deployment's, the same for every workspace and public by nature: any
 * credential of the workspace may read it.
 */
export function makeDigestReads(deps: { store: Pick<DigestStore, 'listDigests'>; publicKeyPem: () => Promise<string> }) {
  return {
    /** The digests whose period starts in [since, until] (epoch ms; default: all), oldest first. */
    async listDigests(principal: Principal, page: PageRequest, range: { since?: number | undefined; until?: number | undefined }) {
      assertMayReadAudit(principal);
      return deps.store.listDigests(principal.workspaceId, page, { since: range.since ?? 0, until: range.until ?? END_OF_TIME });
    },

    /** The PEM of the digests' public key (SubjectPublicKeyInfo, ECDSA P-256). */
    async publicKey(_principal: Principal): Promise<{ pem: string }> {
      return { pem: await deps.publicKeyPem() };
    },
  };
}

export type DigestReads = ReturnType<typeof makeDigestReads>;
