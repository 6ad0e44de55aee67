import { type AuditEntry, auditPut } from '../audit/index.ts';
import type { ItemKey, Prefetched } from '../platform/prefetch.ts';
import type { SealedValue } from '../platform/crypto/envelope.ts';
import { LimitExceededError } from '../platform/errors.ts';
import { countBy, transact, updateIf, type TransactItem } from '../platform/store/conditional.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Page, PageRequest } from '../platform/store/query.ts';
import { readItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { compact } from '../platform/store/items.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import { type TokenItem, tokenPut } from '../workspaces/index.ts';
import {
  loginKeyAttribute,
  MAX_ACCESS_KEYS,
  toAccessKey,
  tokenRules,
  tokenScope,
  type AccessKeyChanges,
  type AccessKeyItem,
  type LoginKeyState,
  type RevisionChange,
} from './access-key-records.ts';

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

/** Access keys: the record in the workspace partition and its token lookup item, always changed together. */
export function makeAccessKeyStore(db: Db, pager: Pager) {
  return {
    /**
     * The record, its token item (only the token's hash; none for a key whose tokens come from logins), the lookup of
     * its workspace by its id (what a login reads first) and the audit entry, all or nothing.
     */
    async createAccessKey(
      workspaceId: string,
      record: AccessKeyItem,
      credential: { tokenHash: string; awsSecret?: SealedValue | undefined } | undefined,
      audit: AuditEntry,
    ): Promise<void> {
      const tokenHash = credential?.tokenHash;
      const token: TokenItem = {
        kind: 'machine',
        workspaceId,
        credentialId: record.id,
        actorSub: record.identityId,
        expiresAt: record.expiresAt,
        revokedAt: null,
        lastUsedAt: null,
        ...tokenScope(record),
        ...(credential?.awsSecret && { awsSecret: credential.awsSecret }),
      };
      // Only the cap is an outcome: fresh ids and 256 random bits cannot clash.
      const failed = await transact(
        db,
        [
          countBy(db, keys.accessKeyCount(workspaceId), { delta: 1, type: ENTITY.accessKeyCount, max: MAX_ACCESS_KEYS }),
          {
            Put: {
              TableName: db.tableName,
              Item: {
                ...keys.accessKey(workspaceId, record.id),
                type: ENTITY.accessKey,
                workspaceId,
                ...(tokenHash && { tokenHash }),
                ...compact(record),
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: db.tableName,
              Item: { ...keys.accessKeyById(record.id), type: ENTITY.accessKeyById, workspaceId },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          ...(tokenHash ? [tokenPut(db, tokenHash, token, record.createdAt)] : []),
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      if (failed === 0) {
        throw new LimitExceededError(
          `access keys: a workspace has at most ${MAX_ACCESS_KEYS} active keys; revoke one that is no longer used (expired keys count until revoked)`,
        );
      }
    },

    /** What a read of an access key by id needs, to be read ahead with the credential: its record. */
    accessKeyByIdKeys(workspaceId: string, accessKeyId: string): ItemKey[] {
      return [keys.accessKey(workspaceId, accessKeyId)];
    },

    async getAccessKey(
      workspaceId: string,
      accessKeyId: string,
      prefetched?: Prefetched,
    ): Promise<(AccessKeyItem & { tokenHash: string | undefined; revision: number | undefined }) | undefined> {
      const item = await readItem(db, keys.accessKey(workspaceId, accessKeyId), prefetched);
      return (
        item && { ...toAccessKey(item)!, tokenHash: item.tokenHash as string | undefined, revision: item.revision as number | undefined }
      );
    },

    async listAccessKeys(workspaceId: string, page: PageRequest): Promise<Page<AccessKeyItem>> {
      const result = await pager.queryPage({
        scope: `access-keys:${workspaceId}`,
        ...patterns.accessKeysByWorkspace(workspaceId),
        ...page,
      });
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
      const tokenUpdate: TransactItem[] =
        tokenChanges.length === 0 || !tokenHash
          ? []
          : [
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
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.accessKey(workspaceId, record.id),
              UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}${revision.next === undefined ? '' : ', #revision = :next'}`,
              ConditionExpression: revision.next === undefined ? live : `${live} AND ${unchanged}`,
              ExpressionAttributeNames: {
                ...Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
                ...(revision.next !== undefined && { '#revision': 'revision' }),
              },
              ExpressionAttributeValues: {
                ...Object.fromEntries(names.map((name, i) => [`:f${i}`, changes[name]])),
                ...(revision.next !== undefined && {
                  ':next': revision.next,
                  ...(revision.read !== undefined && { ':read': revision.read }),
                }),
              },
            },
          },
          ...tokenUpdate,
          ...(revision.loginState ? [loginStateUpdate(db, workspaceId, revision.loginState)] : []),
          auditPut(db, workspaceId, audit),
        ],
        tokenUpdate.length === 0 ? [0] : [0, 1],
      );
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
      const revoke = (key: ItemKey) =>
        updateIf(db, key, { set: 'revokedAt = :now', condition: 'attribute_not_exists(revokedAt)', values: { ':now': revokedAt } });
      const failed = await transact(
        db,
        [
          revoke(keys.accessKey(workspaceId, accessKeyId)),
          ...(tokenHash ? [revoke(keys.token(tokenHash))] : []),
          ...(loginState ? [loginStateUpdate(db, workspaceId, loginState)] : []),
          auditPut(db, workspaceId, audit),
          // The revoked key frees its slot in the same write.
          countBy(db, keys.accessKeyCount(workspaceId), { delta: -1, type: ENTITY.accessKeyCount }),
        ],
        tokenHash ? [0, 1] : [0],
      );
      return failed === undefined;
    },
  };
}

/** Access keys and their counts, which the access-keys service asks for by name (`Pick<AccessKeyStore, …>`). */
export type AccessKeyStore = ReturnType<typeof makeAccessKeyStore>;
