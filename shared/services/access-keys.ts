import type { Principal } from '../auth/principal.ts';
import { hashToken, issueToken, tokenPrefix } from '../auth/tokens.ts';
import type { ServiceMacs } from '../crypto/mac-key.ts';
import { iso, type Clock } from '../clock.ts';
import { NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { AccessKeyItem } from '../store/access-keys.ts';
import type { Store } from '../store/index.ts';
import { auditEntry } from '../audit-entry.ts';
import type { PageRequest } from '../store/query.ts';
import { announceAnswer } from '../idempotency-scope.ts';

export type AccessKeyServiceStore = Pick<Store, 'createAccessKey' | 'getAccessKey' | 'listAccessKeys' | 'revokeAccessKey'>;

const DAY_MS = 86_400_000;

/**
 * The record with its status, derived at read time. The route's response schema picks the fields that leave; the
 * store's own extras (a token hash read back after a lost race) never do.
 */
function withStatus<R extends AccessKeyItem>(record: R, now: number): R & { status: 'active' | 'revoked' | 'expired' } {
  const status = record.revokedAt ? 'revoked' : record.expiresAt && Date.parse(record.expiresAt) <= now ? 'expired' : 'active';
  return { ...record, status };
}

/** Machine identities and their tokens, for CLIs and SDKs. */
export function makeAccessKeyService({ store, clock, macs }: { store: AccessKeyServiceStore; clock: Clock; macs: () => Promise<ServiceMacs> }) {
  return {
    /** A machine identity (`mid_`) and its one token (`st_`, 256 random bits); the token is in this answer only. */
    async create(principal: Principal, input: { name: string; expiresInDays?: number | undefined }) {
      const now = clock.now();
      const token = issueToken(await macs(), 'machine', principal.workspaceId);
      const record: AccessKeyItem = {
        id: newId('accessKey', now),
        name: input.name,
        identityId: newId('machineIdentity', now),
        tokenPrefix: tokenPrefix(token),
        createdAt: iso(now),
        createdBy: principal.actorSub,
        expiresAt: input.expiresInDays === undefined ? null : iso(now + input.expiresInDays * DAY_MS),
        revokedAt: null,
        lastUsedAt: null,
      };
      const audit = auditEntry(principal, 'access_key.create', record.id, { name: record.name, identityId: record.identityId, expiresAt: record.expiresAt }, now);
      const answer = announceAnswer({ ...withStatus(record, now), token });
      await store.createAccessKey(principal.workspaceId, record, hashToken(token), audit);
      return answer;
    },

    async list(principal: Principal, page: PageRequest) {
      const result = await store.listAccessKeys(principal.workspaceId, page);
      const now = clock.now();
      return { ...result, items: result.items.map((record) => withStatus(record, now)) };
    },

    /** Revokes at once (the token's next request gets AUTH_REQUIRED); revoking again changes nothing. */
    async revoke(principal: Principal, accessKeyId: string) {
      const ws = principal.workspaceId;
      const found = await store.getAccessKey(ws, accessKeyId);
      if (!found) throw new NotFoundError(`access key ${accessKeyId} was not found`);
      const { tokenHash, ...record } = found;
      const now = clock.now();
      if (record.revokedAt) return withStatus(record, now);
      const audit = auditEntry(principal, 'access_key.revoke', accessKeyId, { name: record.name, identityId: record.identityId }, now);
      const answer = announceAnswer(withStatus({ ...record, revokedAt: iso(now) }, now));
      const revoked = await store.revokeAccessKey(ws, accessKeyId, tokenHash, iso(now), audit);
      if (!revoked) return withStatus((await store.getAccessKey(ws, accessKeyId)) ?? record, now);
      return answer;
    },
  };
}

export type AccessKeyService = ReturnType<typeof makeAccessKeyService>;
