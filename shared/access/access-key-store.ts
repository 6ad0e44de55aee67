import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { type AuditEntry, auditPut } from '../audit/index.ts';
import type { ItemKey } from '../platform/prefetch.ts';
import { LimitExceededError } from '../platform/errors.ts';
import { countBy, transact, updateIf, type TransactItem } from '../platform/store/conditional.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { compact, pick } from '../platform/store/items.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import { type TokenItem, tokenPut } from '../workspaces/index.ts';

/** A permission rule as stored: shared/access/access-policy.ts's rule, which the store keeps and never interprets. */
export interface StoredRule {
  effect: 'allow' | 'deny';
  projects: string[];
  environments: string[];
  keys: string[];
  actions: string[];
}

/** How a key's workload proves itself: its one long-lived token, or a login with AWS IAM or OIDC (shared/auth). */
export type StoredAuth =
  | { type: 'token' }
  | { type: 'aws_iam'; principalArns: string[] }
  | { type: 'oidc'; issuer: string; audience: string; subject: string; claims?: Record<string, string> | undefined };

/** The stored access key record (decisions.md fields, less the derived `status`). */
export interface AccessKeyItem {
  id: string;
  name: string;
  identityId: string;
  /** The start of its one token; null for a key whose tokens come from logins. */
  tokenPrefix: string | null;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** Its rules, defaults filled in; null for a key made before permissions existed (it has the default rules). */
  permissions: StoredRule[] | null;
  /** Where its tokens may be used from; empty: anywhere. */
  allowedCidrs: string[];
  /** How its workload proves itself; `{"type":"token"}` for a key made before logins existed. */
  auth: StoredAuth;
  /** The life of each login's token in seconds; null for a `token` key. */
  tokenTtlSeconds: number | null;
}

/** What `PATCH` may change of a key. */
export type AccessKeyChanges = Partial<Pick<AccessKeyItem, 'name' | 'permissions' | 'allowedCidrs'>>;

/**
 * The rules as a token item carries them: their JSON text gzipped (every request of the key reads the item, strongly
 * consistent at one read unit per 4 KB, and 50 rules of long pattern lists are tens of KB of text that compress
 * tenfold), and a digest of the text: what the compiled policy is cached by, so a request compares 22 characters and
 * inflates nothing unless the container has not compiled these rules yet.
 */
function tokenRules(permissions: readonly StoredRule[]): { rules: Uint8Array; rulesId: string } {
  const text = JSON.stringify(permissions);
  return { rules: gzipSync(text), rulesId: createHash('sha256').update(text).digest('base64url').slice(0, 22) };
}

/** What a key's token items carry of its record: its rules (absent: the default rules) and its CIDRs. */
export const tokenScope = (record: Pick<AccessKeyItem, 'permissions' | 'allowedCidrs'>) => ({
  ...(record.permissions && tokenRules(record.permissions)),
  allowedCidrs: record.allowedCidrs,
});

/**
 * What a change of a key that logs in writes on its workspace's item, which every authentication reads anyway: the
 * key's state in attribute `lk_<ak>` (its revision, or minus the epoch second after which none of its tokens can be
 * alive when it is revoked), and the removal of revoked keys' entries that have run out (`prune`, attribute names).
 * A login token carries the revision it was issued at; authentication refuses one of a revoked key or of an older
 * revision, so a change reaches every live token on its next request even before the tokens themselves are updated.
 */
export interface LoginKeyState {
  accessKeyId: string;
  value: number;
  prune: readonly string[];
}

/** A PATCH's revision: the one read, the next one when the scope changes, and the workspace's state of a login key. */
export interface RevisionChange {
  read: number | undefined;
  next?: number | undefined;
  loginState?: LoginKeyState | undefined;
}

/** The workspace item's attribute that holds a login key's state. */
export const loginKeyAttribute = (accessKeyId: string) => `lk_${accessKeyId}`;

function loginStateUpdate(db: Db, workspaceId: string, state: LoginKeyState): TransactItem {
  const own = loginKeyAttribute(state.accessKeyId);
  const prune = state.prune.filter((name) => name !== own);
  return {
    Update: {
      TableName: db.tableName,
      Key: keys.workspace(workspaceId),
      UpdateExpression: `SET #lk = :lk${prune.length ? ` REMOVE ${prune.map((_, i) => `#p${i}`).join(', ')}` : ''}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#lk': own, ...Object.fromEntries(prune.map((name, i) => [`#p${i}`, name])) },
      ExpressionAttributeValues: { ':lk': state.value },
    },
  };
}

/** Unrevoked access keys a workspace may hold, so a stolen key cannot multiply the per-credential reveal limit. */
export const MAX_ACCESS_KEYS = 100;

const FIELDS: readonly (keyof AccessKeyItem)[] = [
  'id', 'name', 'identityId', 'tokenPrefix', 'createdAt', 'createdBy', 'expiresAt', 'revokedAt', 'lastUsedAt', 'permissions', 'allowedCidrs',
  'auth', 'tokenTtlSeconds',
];

/** The record of a stored item, with the defaults of fields that keys made earlier lack. */
export function toAccessKey(item: Record<string, unknown> | undefined): AccessKeyItem | undefined {
  const record = pick<AccessKeyItem>(item, FIELDS);
  return record && { ...record, allowedCidrs: record.allowedCidrs ?? [], auth: record.auth ?? { type: 'token' }, tokenTtlSeconds: record.tokenTtlSeconds ?? null };
}

/** Access keys: the record in the workspace partition and its token lookup item, always changed together. */
export function makeAccessKeyStore(db: Db, pager: Pager) {
  return {
    /**
     * The record, its token item (only the token's hash; none for a key whose tokens come from logins), the lookup of
     * its workspace by its id (what a login reads first) and the audit entry, all or nothing.
     */
    async createAccessKey(workspaceId: string, record: AccessKeyItem, tokenHash: string | undefined, audit: AuditEntry): Promise<void> {
      const token: TokenItem = {
        kind: 'machine',
        workspaceId,
        credentialId: record.id,
        actorSub: record.identityId,
        expiresAt: record.expiresAt,
        revokedAt: null,
        lastUsedAt: null,
        ...tokenScope(record),
      };
      // Only the cap is an outcome: fresh ids and 256 random bits cannot clash.
      const failed = await transact(db, [
        countBy(db, keys.accessKeyCount(workspaceId), { delta: 1, type: ENTITY.accessKeyCount, max: MAX_ACCESS_KEYS }),
        {
          Put: {
            TableName: db.tableName,
            Item: { ...keys.accessKey(workspaceId, record.id), type: ENTITY.accessKey, workspaceId, ...(tokenHash && { tokenHash }), ...compact(record) },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        { Put: { TableName: db.tableName, Item: { ...keys.accessKeyById(record.id), type: ENTITY.accessKeyById, workspaceId }, ConditionExpression: 'attribute_not_exists(PK)' } },
        ...(tokenHash ? [tokenPut(db, tokenHash, token, record.createdAt)] : []),
        auditPut(db, workspaceId, audit),
      ], [0]);
      if (failed === 0) {
        throw new LimitExceededError(`access keys: a workspace has at most ${MAX_ACCESS_KEYS} active keys; revoke one that is no longer used (expired keys count until revoked)`);
      }
    },

    async getAccessKey(workspaceId: string, accessKeyId: string): Promise<(AccessKeyItem & { tokenHash: string | undefined; revision: number | undefined }) | undefined> {
      const item = await getItem(db, keys.accessKey(workspaceId, accessKeyId));
      return item && { ...toAccessKey(item)!, tokenHash: item.tokenHash as string | undefined, revision: item.revision as number | undefined };
    },

    async listAccessKeys(workspaceId: string, page: PageRequest): Promise<Page<AccessKeyItem>> {
      const result = await pager.queryPage({ scope: `access-keys:${workspaceId}`, ...patterns.accessKeysByWorkspace(workspaceId), ...page });
      return { ...result, items: result.items.map((item) => toAccessKey(item)!) };
    },

    /**
     * Changes the record and its token item together, with the audit entry, so the token's next request sees the
     * change. Answers false, writing nothing, when the key was revoked meanwhile (or is gone).
     */
    async updateAccessKey(
      workspaceId: string,
      record: AccessKeyItem,
      tokenHash: string | undefined,
      changes: AccessKeyChanges,
      audit: AuditEntry,
      revision: RevisionChange = { read: undefined },
    ): Promise<boolean> {
      const names = Object.keys(changes) as (keyof AccessKeyChanges)[];
      const live = 'attribute_exists(PK) AND attribute_not_exists(revokedAt)';
      // A change of scope moves the revision on from the one read: a concurrent change, or a login that read the
      // record before it, fails its condition and reads again.
      const unchanged = revision.read === undefined ? 'attribute_not_exists(#revision)' : '#revision = :read';
      // The token items carry the rules and the networks, not the name.
      const tokenChanges = Object.entries({
        ...(changes.permissions && tokenRules(changes.permissions)),
        ...(changes.allowedCidrs && { allowedCidrs: changes.allowedCidrs }),
      });
      const tokenUpdate: TransactItem[] = tokenChanges.length === 0 || !tokenHash ? [] : [
        {
          Update: {
            TableName: db.tableName,
            Key: keys.token(tokenHash),
            UpdateExpression: `SET ${tokenChanges.map((_, i) => `#t${i} = :t${i}`).join(', ')}`,
            ConditionExpression: live,
            ExpressionAttributeNames: Object.fromEntries(tokenChanges.map(([name], i) => [`#t${i}`, name])),
            ExpressionAttributeValues: Object.fromEntries(tokenChanges.map(([, value], i) => [`:t${i}`, value])),
          },
        },
      ];
      const failed = await transact(db, [
        {
          Update: {
            TableName: db.tableName,
            Key: keys.accessKey(workspaceId, record.id),
            UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}${revision.next === undefined ? '' : ', #revision = :next'}`,
            ConditionExpression: revision.next === undefined ? live : `${live} AND ${unchanged}`,
            ExpressionAttributeNames: { ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])), ...(revision.next !== undefined && { '#revision': 'revision' }) },
            ExpressionAttributeValues: {
              ...Object.fromEntries(names.map((name, i) => [`:f${i}`, changes[name]])),
              ...(revision.next !== undefined && { ':next': revision.next, ...(revision.read !== undefined && { ':read': revision.read }) }),
            },
          },
        },
        ...tokenUpdate,
        ...(revision.loginState ? [loginStateUpdate(db, workspaceId, revision.loginState)] : []),
        auditPut(db, workspaceId, audit),
      ], tokenUpdate.length === 0 ? [0] : [0, 1]);
      return failed === undefined;
    },

    /**
     * Revokes the record and its token together, with the audit entry. Answers false, writing nothing, when it was
     * revoked already (revoke is idempotent and audited once).
     */
    async revokeAccessKey(
      workspaceId: string,
      accessKeyId: string,
      tokenHash: string | undefined,
      revokedAt: string,
      audit: AuditEntry,
      loginState?: LoginKeyState,
    ): Promise<boolean> {
      const revoke = (key: ItemKey) => updateIf(db, key, { set: 'revokedAt = :now', condition: 'attribute_not_exists(revokedAt)', values: { ':now': revokedAt } });
      const failed = await transact(db, [
        revoke(keys.accessKey(workspaceId, accessKeyId)),
        ...(tokenHash ? [revoke(keys.token(tokenHash))] : []),
        ...(loginState ? [loginStateUpdate(db, workspaceId, loginState)] : []),
        auditPut(db, workspaceId, audit),
        // The revoked key frees its slot in the same write.
        countBy(db, keys.accessKeyCount(workspaceId), { delta: -1, type: ENTITY.accessKeyCount }),
      ], tokenHash ? [0, 1] : [0]);
      return failed === undefined;
    },
  };
}
