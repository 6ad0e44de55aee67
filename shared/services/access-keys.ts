import type { Principal } from '../auth/principal.ts';
import { hashToken, issueToken, tokenPrefix } from '../auth/tokens.ts';
import type { ServiceMacs } from '../crypto/mac-key.ts';
import { iso, type Clock } from '../clock.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { DEFAULT_RULES, withDefaults, type PermissionRule, type PermissionRuleInput } from '../auth/policy.ts';
import { newId } from '../ids.ts';
import type { AccessKeyChanges, AccessKeyItem } from '../store/access-keys.ts';
import type { Store } from '../store/index.ts';
import { auditEntry } from '../audit-entry.ts';
import type { PageRequest } from '../store/query.ts';
import { announceAnswer } from '../idempotency-scope.ts';

export type AccessKeyServiceStore = Pick<Store, 'createAccessKey' | 'getAccessKey' | 'listAccessKeys' | 'updateAccessKey' | 'revokeAccessKey'>;

/** What a create or an update may say of a key's scope. */
interface ScopeInput {
  permissions?: PermissionRuleInput[] | undefined;
  allowedCidrs?: string[] | undefined;
}

/** Rules as stored and shown: each with its defaults filled in; no rules at all, the default rules. */
const rulesOf = (input: PermissionRuleInput[] | undefined): PermissionRule[] => (input ? input.map(withDefaults) : DEFAULT_RULES.map((rule) => ({ ...rule })));

const DAY_MS = 86_400_000;

/**
 * The record with its status, derived at read time. The route's response schema picks the fields that leave; the
 * store's own extras (a token hash read back after a lost race) never do.
 */
function withStatus<R extends AccessKeyItem>(record: R, now: number): R & { status: 'active' | 'revoked' | 'expired'; permissions: PermissionRule[] } {
  const status = record.revokedAt ? 'revoked' : record.expiresAt && Date.parse(record.expiresAt) <= now ? 'expired' : 'active';
  return { ...record, status, permissions: (record.permissions as PermissionRule[] | null) ?? rulesOf(undefined) };
}

/** Machine identities and their tokens, for CLIs and SDKs. */
export function makeAccessKeyService({ store, clock, macs }: { store: AccessKeyServiceStore; clock: Clock; macs: () => Promise<ServiceMacs> }) {
  return {
    /** A machine identity (`mid_`) and its one token (`st_`, 256 random bits); the token is in this answer only. */
    async create(principal: Principal, input: { name: string; expiresInDays?: number | undefined } & ScopeInput) {
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
        permissions: rulesOf(input.permissions),
        allowedCidrs: input.allowedCidrs ?? [],
      };
      const { name, identityId, expiresAt, permissions, allowedCidrs } = record;
      const audit = auditEntry(principal, 'access_key.create', record.id, { name, identityId, expiresAt, permissions, allowedCidrs }, now);
      const answer = announceAnswer({ ...withStatus(record, now), token });
      await store.createAccessKey(principal.workspaceId, record, hashToken(token), audit);
      return answer;
    },

    async list(principal: Principal, page: PageRequest) {
      const result = await store.listAccessKeys(principal.workspaceId, page);
      const now = clock.now();
      return { ...result, items: result.items.map((record) => withStatus(record, now)) };
    },

    /**
     * Changes a key's name, rules or networks; its tokens' next requests see the change (the record and every token
     * item change in one transaction). Audited as `access_key.update` with the changed fields and their new values;
     * a change that changes nothing writes nothing. A revoked key is CONFLICT.
     */
    async update(principal: Principal, accessKeyId: string, input: { name?: string | undefined } & ScopeInput) {
      const ws = principal.workspaceId;
      const found = await store.getAccessKey(ws, accessKeyId);
      if (!found) throw new NotFoundError(`access key ${accessKeyId} was not found`);
      const { tokenHash, ...record } = found;
      const now = clock.now();
      if (record.revokedAt) throw new ConflictError(`access key ${accessKeyId} is revoked and cannot be changed`);
      const wanted: AccessKeyChanges = {
        ...(input.name !== undefined && { name: input.name }),
        ...(input.permissions !== undefined && { permissions: rulesOf(input.permissions) }),
        ...(input.allowedCidrs !== undefined && { allowedCidrs: input.allowedCidrs }),
      };
      const changes = Object.fromEntries(
        Object.entries(wanted).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(record[field as keyof AccessKeyChanges])),
      ) as AccessKeyChanges;
      const updated = { ...record, ...changes };
      if (Object.keys(changes).length === 0) return withStatus(updated, now);
      const audit = auditEntry(principal, 'access_key.update', accessKeyId, { changed: Object.keys(changes), ...changes }, now);
      const answer = announceAnswer(withStatus(updated, now));
      if (!(await store.updateAccessKey(ws, record, tokenHash, changes, audit))) {
        throw new ConflictError(`access key ${accessKeyId} was revoked meanwhile and cannot be changed`);
      }
      return answer;
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
