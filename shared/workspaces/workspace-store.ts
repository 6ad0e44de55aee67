import type { SealedValue } from '../platform/crypto/envelope.ts';
import { NotFoundError } from '../platform/errors.ts';
import { itemKeyString, type ItemKey, type Prefetched } from '../platform/prefetch.ts';
import { mustExist, transact, updateIf, type TransactItem } from '../platform/store/conditional.ts';
import { type AuditEntry, auditPut } from '../audit/index.ts';
import { ENTITY, gsi1, gsi2, keys, patterns } from '../platform/store/keys.ts';
import { queryAll } from '../platform/store/query.ts';
import { batchRead, getItem } from '../platform/store/reads.ts';
import type { Db } from '../platform/store/send.ts';
import { compact, pick } from '../platform/store/items.ts';

export interface WorkspaceItem {
  id: string;
  name: string;
  accountId: string;
  allowlisted: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * The state of each access key that logs in and was changed or revoked (`lk_<ak>` attributes, see LoginKeyState in
   * shared/access/access-key-store.ts): its revision, or below 0 when it is revoked. Absent: no such key.
   */
  loginKeys?: Record<string, number>;
  /**
   * The environments with a review policy (a string set, written with the policy: review-policy-store.ts). Read with
   * every credential, it tells a write by secret id whether it must read its environment. Absent: none.
   */
  reviewedEnvironments?: ReadonlySet<string>;
}

/** The workspace's record, with its login keys' states gathered from their `lk_<ak>` attributes. */
function toWorkspace(item: Record<string, unknown> | undefined): WorkspaceItem | undefined {
  const workspace = pick<WorkspaceItem>(item, WORKSPACE_FIELDS);
  if (!workspace) return undefined;
  const states = Object.entries(item!).filter(([name, value]) => name.startsWith('lk_') && typeof value === 'number');
  const reviewed = item!.reviewedEnvironments;
  return {
    ...workspace,
    ...(states.length > 0 && { loginKeys: Object.fromEntries(states.map(([name, value]) => [name.slice(3), value as number])) }),
    ...(reviewed instanceof Set && reviewed.size > 0 && { reviewedEnvironments: reviewed as Set<string> }),
  };
}

/** What the token lookup item holds: never the token, only what authentication needs. */
export interface TokenItem {
  kind: 'api_key' | 'machine';
  workspaceId: string;
  credentialId: string;
  actorSub: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /** When it last authenticated, to the minute (see `touchCredential`). */
  lastUsedAt: string | null;
  /**
   * A machine token's rules, defaults filled in, as their JSON text gzipped (absent: the default rules):
   * authentication reads this item anyway, so deciding costs no extra read.
   */
  rules?: Uint8Array | undefined;
  /** A digest of the rules' text: the key of the compiled policy's cache. */
  rulesId?: string | undefined;
  /** The source addresses a machine token may be used from (absent or empty: anywhere). */
  allowedCidrs?: string[] | undefined;
  /** A login's token: the revision of its access key it was issued at (absent: the key's own long-lived token). */
  keyRevision?: number | undefined;
  /**
   * A login's token: the form its login answered it in, `token` (a bearer token) or `aws` (the session token of
   * temporary AWS credentials); each works only that way (shared/access/token-use.ts). Absent on other tokens and on
   * login tokens issued before v1.4.
   */
  format?: 'token' | 'aws' | undefined;
  /**
   * An AWS key pair's secret half, sealed (access keys with auth `aws_sigv4`): the item is then found by the hash of
   * the key id, and only a SigV4 signature made with this secret authenticates through it, never a bearer token.
   */
  awsSecret?: SealedValue | undefined;
}

export interface ApiKeyItem {
  id: string;
  name: string;
  tokenPrefix: string;
  tokenHash: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

const WORKSPACE_FIELDS: (keyof WorkspaceItem)[] = ['id', 'name', 'accountId', 'allowlisted', 'createdAt', 'updatedAt'];
const TOKEN_FIELDS: (keyof TokenItem)[] = [
  'kind',
  'workspaceId',
  'credentialId',
  'actorSub',
  'expiresAt',
  'revokedAt',
  'lastUsedAt',
  'rules',
  'rulesId',
  'allowedCidrs',
  'keyRevision',
  'format',
  'awsSecret',
];
const API_KEY_FIELDS: (keyof ApiKeyItem)[] = ['id', 'name', 'tokenPrefix', 'tokenHash', 'createdAt', 'revokedAt', 'lastUsedAt'];

/** How authentication reads a credential's context. */
export interface CredentialReadOptions {
  /**
   * Read the workspace item strongly consistently even beside eventually consistent route items: it holds the
   * state of every access key that logs in (`loginKeys`), which a login token must follow at once on every route.
   */
  consistentWorkspace?: boolean;
}

/** The transaction item that stores a new token's lookup item (only its hash, never the token). */
export function tokenPut(db: Db, tokenHash: string, token: TokenItem, createdAt: string): TransactItem {
  return {
    Put: {
      TableName: db.tableName,
      Item: { ...keys.token(tokenHash), type: ENTITY.token, createdAt, ...compact(token) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** Workspaces, their API keys and the token lookup items. */
export function makeWorkspaceStore(db: Db) {
  const store = {
    /**
     * The credential's token item (if any), its workspace and the route's `extra` items, in one consistent round
     * trip: a revoked token fails at once, and the route's first read costs no extra request.
     */
    async getCredentialContext(
      tokenHash: string | undefined,
      workspaceId: string,
      extra: readonly ItemKey[] = [],
      options: CredentialReadOptions = {},
    ): Promise<{ token: TokenItem | undefined; workspace: WorkspaceItem | undefined; prefetched: Prefetched }> {
      const tokenKey = tokenHash === undefined ? undefined : keys.token(tokenHash);
      const workspaceKey = keys.workspace(workspaceId);
      // A token is always read strongly consistently: a revoked one fails the very next request. When the route
      // reads ahead items it may see eventually consistently (a reveal's head), those are read that way beside the
      // token, at half the read units; so is the workspace, unless the caller needs it strongly consistent too (an
      // `st_` token, whose login key's state is on it): then token and workspace are one consistent BatchGetItem
      // instead of the token's GetItem, and the round trips stay two, in parallel.
      const eventual = extra.some((key) => key.eventual);
      let items: Map<string, Record<string, unknown> | undefined>;
      if (!eventual) items = await batchRead(db, [...(tokenKey ? [tokenKey] : []), workspaceKey, ...extra]);
      else if (tokenKey && options.consistentWorkspace) {
        const [strong, rest] = await Promise.all([batchRead(db, [tokenKey, workspaceKey]), batchRead(db, extra, { consistent: false })]);
        items = new Map([...rest, ...strong]);
      } else {
        const [token, rest] = await Promise.all([
          tokenKey && getItem(db, tokenKey),
          batchRead(db, [workspaceKey, ...extra], { consistent: false }),
        ]);
        items = tokenKey ? rest.set(itemKeyString(tokenKey), token) : rest;
      }
      return {
        token: tokenKey && pick<TokenItem>(items.get(itemKeyString(tokenKey)), TOKEN_FIELDS),
        workspace: toWorkspace(items.get(itemKeyString(workspaceKey))),
        prefetched: items,
      };
    },

    async getToken(tokenHash: string): Promise<TokenItem | undefined> {
      return pick<TokenItem>(await getItem(db, keys.token(tokenHash)), TOKEN_FIELDS);
    },

    async getWorkspace(workspaceId: string): Promise<WorkspaceItem | undefined> {
      return toWorkspace(await getItem(db, keys.workspace(workspaceId)));
    },

    async putWorkspace(workspace: WorkspaceItem): Promise<void> {
      const item = {
        ...keys.workspace(workspace.id),
        ...(workspace.allowlisted ? gsi1.allowlistedWorkspace(workspace.id) : {}),
        // Every workspace, allowlisted or not, is in the GSI2 list the audit digester walks.
        ...gsi2.workspace(workspace.id),
        type: ENTITY.workspace,
        ...workspace,
      };
      // Ids are fresh ULIDs: a clash is a fault, not an outcome, so no condition is handled.
      await transact(db, [{ Put: { TableName: db.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }], []);
    },

    /** Puts the workspace on the allowlist or takes it off, with the operator's audit entry. */
    async setAllowlisted(workspaceId: string, allowlisted: boolean, now: string, audit: AuditEntry): Promise<void> {
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.workspace(workspaceId),
              // The sparse GSI1 keys put an allowlisted workspace in the ALLOWLIST index pattern, and take it out again.
              UpdateExpression: allowlisted
                ? 'SET allowlisted = :a, updatedAt = :now, GSI1PK = :gpk, GSI1SK = :gsk'
                : 'SET allowlisted = :a, updatedAt = :now REMOVE GSI1PK, GSI1SK',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: {
                ':a': allowlisted,
                ':now': now,
                ...(allowlisted ? { ':gpk': gsi1.allowlistedWorkspace(workspaceId).GSI1PK, ':gsk': workspaceId } : {}),
              },
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      if (failed === 0) throw new NotFoundError(`workspace ${workspaceId} does not exist`);
    },

    /** The API key record, its token item and the operator's audit entry (if any) together; the workspace must exist. */
    async putApiKey(workspaceId: string, apiKey: ApiKeyItem, audit: AuditEntry | undefined): Promise<void> {
      const token: TokenItem = {
        kind: 'api_key',
        workspaceId,
        credentialId: apiKey.id,
        actorSub: apiKey.id,
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      };
      const failed = await transact(
        db,
        [
          mustExist(db, keys.workspace(workspaceId)),
          // Credential items are only ever created, never written over (a fresh id: the condition guards, not decides).
          {
            Put: {
              TableName: db.tableName,
              Item: { ...keys.apiKey(workspaceId, apiKey.id), type: ENTITY.apiKey, ...compact(apiKey) },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          tokenPut(db, apiKey.tokenHash, token, apiKey.createdAt),
          ...(audit ? [auditPut(db, workspaceId, audit)] : []),
        ],
        [0],
      );
      if (failed === 0) throw new NotFoundError(`workspace ${workspaceId} does not exist`);
    },

    async getApiKey(workspaceId: string, keyId: string): Promise<ApiKeyItem | undefined> {
      return pick<ApiKeyItem>(await getItem(db, keys.apiKey(workspaceId, keyId)), API_KEY_FIELDS);
    },

    /**
     * Marks the record and its token item revoked in one transaction with the operator's audit entry; the next
     * request with it fails. Answers false, writing nothing, when it was revoked already (audited once).
     */
    async revokeApiKey(workspaceId: string, apiKey: ApiKeyItem, now: string, audit: AuditEntry): Promise<boolean> {
      const revoke = (key: ItemKey) =>
        updateIf(db, key, { set: 'revokedAt = :now', condition: 'attribute_not_exists(revokedAt)', values: { ':now': now } });
      const failed = await transact(
        db,
        [revoke(keys.apiKey(workspaceId, apiKey.id)), revoke(keys.token(apiKey.tokenHash)), auditPut(db, workspaceId, audit)],
        [0, 1],
      );
      return failed === undefined;
    },

    /**
     * Records that a token authenticated at `now`, on its token item and its record (an access key or an API key),
     * unless another request already did since `notSince`: at most one write per key and minute.
     */
    async touchCredential(
      token: Pick<TokenItem, 'kind' | 'workspaceId' | 'credentialId'>,
      tokenHash: string,
      now: string,
      notSince: string,
    ): Promise<void> {
      const touch = (key: ItemKey) =>
        updateIf(db, key, {
          set: 'lastUsedAt = :now',
          condition: 'attribute_not_exists(lastUsedAt) OR lastUsedAt < :since',
          values: { ':now': now, ':since': notSince },
        });
      const record =
        token.kind === 'machine'
          ? keys.accessKey(token.workspaceId, token.credentialId)
          : keys.apiKey(token.workspaceId, token.credentialId);
      // Another request recorded this minute already: nothing to do.
      await transact(db, [touch(keys.token(tokenHash)), touch(record)], [0, 1]);
    },

    /** Every allowlisted workspace id, from the sparse ALLOWLIST index pattern (never a Scan). */
    async listAllowlisted(): Promise<string[]> {
      const items = await queryAll<{ GSI1SK: string }>(db, patterns.allowlistedWorkspaces());
      return items.map((item) => item.GSI1SK);
    },
  };
  return store;
}

export type WorkspaceStore = ReturnType<typeof makeWorkspaceStore>;
