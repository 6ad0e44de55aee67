import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { itemKeyString, type ItemKey } from '../platform/prefetch.ts';
import { type AuditEntry, auditPut, putAuditEntries } from '../audit/index.ts';
import { CONTENTION, countBy, sendConditional, transact } from '../platform/store/conditional.ts';
import { compact, pick } from '../platform/store/items.ts';
import { ENTITY, keys, patterns } from '../platform/store/keys.ts';
import { queryAll } from '../platform/store/query.ts';
import { batchRead, getItem } from '../platform/store/reads.ts';
import { send, type Db } from '../platform/store/send.ts';
import { toAccessKey, type AccessKeyItem } from './access-key-records.ts';
import { type TokenItem, tokenPut, type WorkspaceItem } from '../workspaces/index.ts';

/** What a login reads of its access key: the record, the revision it was read at, and its workspace. */
export interface LoginTarget {
  workspaceId: string;
  record: AccessKeyItem;
  /** Changed by every PATCH: a login issued against an older revision is refused and read again. */
  revision: number | undefined;
  workspace: Pick<WorkspaceItem, 'allowlisted' | 'accountId'> | undefined;
}

/**
 * Where a login counts (decisions.md, "Hardening v1.3"): the clock minute, and the source address its refusals
 * count under (per access key and address; its successes count per access key alone).
 */
export interface LoginWindow {
  /** Epoch minutes: `Math.floor(now / 60_000)`. */
  minute: number;
  source: string;
}

/** What an access key has spent of its login budgets in a window, as read with the key. */
export interface LoginSpent {
  /** Successful logins of the key in the minute. */
  logins: number;
  /** Refused logins of the key from the window's source address in the minute. */
  refusals: number;
}

/** A login token about to be issued: its item, the hash it is found by, and what goes with it. */
export interface LoginIssue {
  workspaceId: string;
  record: AccessKeyItem;
  revision: number | undefined;
  tokenHash: string;
  token: TokenItem;
  audit: AuditEntry;
  createdAt: string;
  /** The window the login counts in, and the key's budget of successful logins in it. */
  window: LoginWindow;
  maxLogins: number;
}

/** Login tokens stay readable this long past their expiry (answered "expired", not "not valid"), then TTL takes them. */
const KEPT_AFTER_EXPIRY_SECONDS = 3600;

/** Token items changed at once when a key's change reaches its live login tokens. */
const TOKEN_UPDATES_IN_FLIGHT = 10;

/** Logins of access keys: finding the key by its id, counting successes and refusals, issuing tokens, and reaching live ones. */
export function makeLoginStore(db: Db) {
  const store = {
    /**
     * The key a login names, by its id alone: the lookup item (eventually consistent: it never changes), then the
     * record and the workspace in one consistent BatchGetItem. Undefined for an unknown key.
     */
    async findLoginTarget(accessKeyId: string): Promise<LoginTarget | undefined> {
      const workspaceId = await store.workspaceOfAccessKey(accessKeyId);
      return workspaceId === undefined ? undefined : store.readLoginTarget(workspaceId, accessKeyId);
    },

    /** The workspace of an access key, by the key's id alone (eventually consistent: it never changes). */
    async workspaceOfAccessKey(accessKeyId: string): Promise<string | undefined> {
      const lookup = await send<{ Item?: Record<string, unknown> }>(
        db,
        new GetCommand({ TableName: db.tableName, Key: keys.accessKeyById(accessKeyId) }),
      );
      const workspaceId = lookup.Item?.workspaceId;
      return typeof workspaceId === 'string' ? workspaceId : undefined;
    },

    /** The key's record and its workspace, in one consistent BatchGetItem; undefined when the record is gone. */
    async readLoginTarget(workspaceId: string, accessKeyId: string): Promise<LoginTarget | undefined> {
      const items = await batchRead(db, [keys.accessKey(workspaceId, accessKeyId), keys.workspace(workspaceId)]);
      return targetOf(items, workspaceId, accessKeyId);
    },

    /**
     * What a login reads before any check: the key's record, its workspace, and both of its login counters of the
     * window (successes of the key, refusals of the key from the window's address), in one strongly consistent
     * BatchGetItem: the budgets cost no request of their own. Absent counters have spent nothing.
     */
    async readLoginAttempt(
      workspaceId: string,
      accessKeyId: string,
      window: LoginWindow,
    ): Promise<{ target: LoginTarget | undefined; spent: LoginSpent }> {
      const logins = keys.loginCounter(workspaceId, accessKeyId, window.minute);
      const refusals = keys.loginRefusalCounter(workspaceId, accessKeyId, window.source, window.minute);
      const items = await batchRead(db, [keys.accessKey(workspaceId, accessKeyId), keys.workspace(workspaceId), logins, refusals]);
      const count = (key: ItemKey) => (items.get(itemKeyString(key))?.count as number | undefined) ?? 0;
      return { target: targetOf(items, workspaceId, accessKeyId), spent: { logins: count(logins), refusals: count(refusals) } };
    },

    /**
     * Counts a refused login of a key from the window's address, then writes its audit entry (if any): false,
     * counting and writing nothing, when `max` were refused there in the window already. One conditional UpdateItem,
     * made only when a login is refused, so at most `max` refusals a window are audited; the counter expires with TTL.
     */
    async recordLoginRefusal(
      workspaceId: string,
      accessKeyId: string,
      window: LoginWindow,
      max: number,
      audit: AuditEntry | undefined,
    ): Promise<boolean> {
      const key = keys.loginRefusalCounter(workspaceId, accessKeyId, window.source, window.minute);
      const count = countBy(db, key, { delta: 1, type: ENTITY.loginRefusalCounter, max, ttl: windowTtl(window) });
      if ((await sendConditional(db, new UpdateCommand(count.Update!))) === undefined) return false;
      if (audit) await putAuditEntries(db, workspaceId, [audit]);
      return true;
    },

    /**
     * Issues a login token: its credential item, its entry among the key's live tokens, the audit entry and the count
     * of the key's successful logins in the window, on condition that the key is still unrevoked at the revision the
     * login read and has logged in fewer than `maxLogins` times in the window. `stale`, writing nothing, when the key
     * is revoked or changed meanwhile: the caller reads again; `limited`, writing nothing, when the window's logins
     * are spent; `busy` when a concurrent transaction on the record cancelled it: the caller tries again. So a revoke
     * or PATCH either sees this token in its query of live tokens or makes this login fail, and a login is counted if
     * and only if its token is issued.
     */
    async issueLoginToken(issue: LoginIssue): Promise<'issued' | 'stale' | 'busy' | 'limited'> {
      const { workspaceId, record, revision, tokenHash, token, audit, createdAt, window, maxLogins } = issue;
      const ttl = Math.ceil(Date.parse(token.expiresAt!) / 1000) + KEPT_AFTER_EXPIRY_SECONDS;
      const sameRevision = revision === undefined ? 'attribute_not_exists(#revision)' : '#revision = :revision';
      const put = tokenPut(db, tokenHash, token, createdAt);
      const failed = await transact(
        db,
        [
          {
            ConditionCheck: {
              TableName: db.tableName,
              Key: keys.accessKey(workspaceId, record.id),
              ConditionExpression: `attribute_exists(PK) AND attribute_not_exists(revokedAt) AND ${sameRevision}`,
              ExpressionAttributeNames: { '#revision': 'revision' },
              ...(revision !== undefined && { ExpressionAttributeValues: { ':revision': revision } }),
            },
          },
          { Put: { ...put.Put!, Item: { ...put.Put!.Item, ttl } } },
          {
            Put: {
              TableName: db.tableName,
              Item: { ...keys.loginToken(workspaceId, record.id, token.expiresAt!, tokenHash), type: ENTITY.loginToken, tokenHash, ttl },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          auditPut(db, workspaceId, audit),
          countBy(db, keys.loginCounter(workspaceId, record.id, window.minute), {
            delta: 1,
            type: ENTITY.loginCounter,
            max: maxLogins,
            ttl: windowTtl(window),
          }),
        ],
        [0, 4],
        { contention: 'handled' },
      );
      if (failed === undefined) return 'issued';
      return failed === CONTENTION ? 'busy' : failed === 4 ? 'limited' : 'stale';
    },

    /**
     * The `lk_<ak>` attributes of the workspace item whose keys were revoked so long ago that none of their tokens can
     * be alive (their state is minus that epoch second): a change of a login key removes them as it writes its own.
     */
    async expiredLoginKeyStates(workspaceId: string, nowSeconds: number): Promise<string[]> {
      const item = (await getItem(db, keys.workspace(workspaceId))) ?? {};
      return Object.entries(item)
        .filter(([name, value]) => name.startsWith('lk_') && typeof value === 'number' && value < 0 && -value < nowSeconds)
        .map(([name]) => name);
    },

    /**
     * Sets `fields` on every live login token of a key (found by a strongly consistent Query of its entries from now
     * on), so a revoke or a PATCH applies to them on their next request. A token gone meanwhile (TTL) is skipped.
     * Answers how many tokens were changed.
     */
    async reachLoginTokens(workspaceId: string, accessKeyId: string, now: string, fields: Partial<TokenItem>): Promise<number> {
      // Newest first: the tokens that will live longest are reached first.
      const live = await queryAll<{ tokenHash: string }>(db, patterns.loginTokensOfAccessKey(workspaceId, accessKeyId), {
        skBetween: [now, '~'],
        consistent: true,
        projection: ['tokenHash'],
        newestFirst: true,
      });
      const set = Object.entries(compact(fields));
      if (set.length === 0) return 0;
      const pending = live.map((entry) => entry.tokenHash);
      let changed = 0;
      const lanes = Array.from({ length: Math.min(TOKEN_UPDATES_IN_FLIGHT, pending.length) }, async () => {
        for (let hash = pending.shift(); hash; hash = pending.shift()) {
          const written = await sendConditional(
            db,
            new UpdateCommand({
              TableName: db.tableName,
              Key: keys.token(hash),
              UpdateExpression: `SET ${set.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
              // A token gone meanwhile (TTL) is not made again; a revoked one stays as it is; one a later change reached
              // first keeps that change.
              ConditionExpression: `attribute_exists(PK) AND attribute_not_exists(revokedAt)${fields.keyRevision === undefined ? '' : ' AND (attribute_not_exists(keyRevision) OR keyRevision < :revision)'}`,
              ExpressionAttributeNames: Object.fromEntries(set.map(([name], i) => [`#f${i}`, name])),
              ExpressionAttributeValues: {
                ...Object.fromEntries(set.map(([, value], i) => [`:f${i}`, value])),
                ...(fields.keyRevision !== undefined && { ':revision': fields.keyRevision }),
              },
            }),
          );
          if (written !== undefined) changed += 1;
        }
      });
      await Promise.all(lanes);
      return changed;
    },
  };
  return store;
}

/** The key's record and workspace among the items of a login's read; undefined when the record is gone. */
function targetOf(
  items: Map<string, Record<string, unknown> | undefined>,
  workspaceId: string,
  accessKeyId: string,
): LoginTarget | undefined {
  const item = items.get(itemKeyString(keys.accessKey(workspaceId, accessKeyId)));
  const record = toAccessKey(item);
  if (!record) return undefined;
  const workspace = pick<Pick<WorkspaceItem, 'allowlisted' | 'accountId'>>(items.get(itemKeyString(keys.workspace(workspaceId))), [
    'allowlisted',
    'accountId',
  ]);
  return { workspaceId, record, revision: item?.revision as number | undefined, workspace };
}

/** A window's counters expire with TTL a minute after the window ends. */
const windowTtl = (window: LoginWindow) => (window.minute + 2) * 60;

export type LoginStore = ReturnType<typeof makeLoginStore>;
