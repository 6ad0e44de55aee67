import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../errors.ts';
import { itemKeyString, type ItemKey, type Prefetched } from '../prefetch.ts';
import { mustExist, sendConditional, transact, type TransactItem } from './conditional.ts';
import { ENTITY, gsi1, keys, patterns } from './keys.ts';
import { queryAll } from './query.ts';
import { batchRead, getItem } from './reads.ts';
import type { Db } from './send.ts';
import { compact, pick } from './items.ts';

export interface WorkspaceItem {
  id: string;
  name: string;
  accountId: string;
  allowlisted: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What the token lookup item holds: never the token, only what authentication needs. */
export interface TokenItem {
  kind: 'api_key' | 'machine';
  workspaceId: string;
  credentialId: string;
  actorSub: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /** Machine tokens only: when it last authenticated, to the minute (see `touchAccessKey`). */
  lastUsedAt: string | null;
}

export interface ApiKeyItem {
  id: string;
  name: string;
  tokenPrefix: string;
  tokenHash: string;
  createdAt: string;
  revokedAt: string | null;
}

const WORKSPACE_FIELDS: (keyof WorkspaceItem)[] = ['id', 'name', 'accountId', 'allowlisted', 'createdAt', 'updatedAt'];
const TOKEN_FIELDS: (keyof TokenItem)[] = ['kind', 'workspaceId', 'credentialId', 'actorSub', 'expiresAt', 'revokedAt', 'lastUsedAt'];
const API_KEY_FIELDS: (keyof ApiKeyItem)[] = ['id', 'name', 'tokenPrefix', 'tokenHash', 'createdAt', 'revokedAt'];

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
    ): Promise<{ token: TokenItem | undefined; workspace: WorkspaceItem | undefined; prefetched: Prefetched }> {
      const tokenKey = tokenHash === undefined ? undefined : keys.token(tokenHash);
      const workspaceKey = keys.workspace(workspaceId);
      const items = await batchRead(db, [...(tokenKey ? [tokenKey] : []), workspaceKey, ...extra]);
      return {
        token: tokenKey && pick<TokenItem>(items.get(itemKeyString(tokenKey)), TOKEN_FIELDS),
        workspace: pick<WorkspaceItem>(items.get(itemKeyString(workspaceKey)), WORKSPACE_FIELDS),
        prefetched: items,
      };
    },

    async getToken(tokenHash: string): Promise<TokenItem | undefined> {
      return pick<TokenItem>(await getItem(db, keys.token(tokenHash)), TOKEN_FIELDS);
    },

    async getWorkspace(workspaceId: string): Promise<WorkspaceItem | undefined> {
      return pick<WorkspaceItem>(await getItem(db, keys.workspace(workspaceId)), WORKSPACE_FIELDS);
    },

    async putWorkspace(workspace: WorkspaceItem): Promise<void> {
      const item = { ...keys.workspace(workspace.id), ...(workspace.allowlisted ? gsi1.allowlistedWorkspace(workspace.id) : {}), type: ENTITY.workspace, ...workspace };
      // Ids are fresh ULIDs: a clash is a fault, not an outcome, so no condition is handled.
      await transact(db, [{ Put: { TableName: db.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } }], []);
    },

    async setAllowlisted(workspaceId: string, allowlisted: boolean, now: string): Promise<void> {
      const updated = await sendConditional(
        db,
        new UpdateCommand({
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
        }),
      );
      if (!updated) throw new NotFoundError(`workspace ${workspaceId} does not exist`);
    },

    /** The API key record and its token item together; the workspace must exist. */
    async putApiKey(workspaceId: string, apiKey: ApiKeyItem): Promise<void> {
      const token: TokenItem = {
        kind: 'api_key',
        workspaceId,
        credentialId: apiKey.id,
        actorSub: apiKey.id,
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      };
      const failed = await transact(db, [
        mustExist(db, keys.workspace(workspaceId)),
        { Put: { TableName: db.tableName, Item: { ...keys.apiKey(workspaceId, apiKey.id), type: ENTITY.apiKey, ...compact(apiKey) } } },
        tokenPut(db, apiKey.tokenHash, token, apiKey.createdAt),
      ], [0]);
      if (failed === 0) throw new NotFoundError(`workspace ${workspaceId} does not exist`);
    },

    async getApiKey(workspaceId: string, keyId: string): Promise<ApiKeyItem | undefined> {
      return pick<ApiKeyItem>(await getItem(db, keys.apiKey(workspaceId, keyId)), API_KEY_FIELDS);
    },

    /** Marks the record and its token item revoked in one transaction; the next request with it fails. */
    async revokeApiKey(workspaceId: string, apiKey: ApiKeyItem, now: string): Promise<void> {
      const set = { UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)', ExpressionAttributeValues: { ':now': now } };
      await transact(db, [
        { Update: { TableName: db.tableName, Key: keys.apiKey(workspaceId, apiKey.id), ...set } },
        { Update: { TableName: db.tableName, Key: keys.token(apiKey.tokenHash), ...set } },
      ], []);
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
