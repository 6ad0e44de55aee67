import type { SealedValue } from '../../platform/crypto/envelope.ts';
import { ConflictError, LimitExceededError, NotFoundError } from '../../platform/errors.ts';
import { type AuditEntry, auditPut } from '../../audit/index.ts';
import { countBy, transact } from '../../platform/store/conditional.ts';
import type { Pager } from '../../platform/store/pager.ts';
import type { PageRequest } from '../../platform/store/query.ts';
import { getItem, readItem } from '../../platform/store/reads.ts';
import type { ItemKey, Prefetched } from '../../platform/prefetch.ts';
import type { Db } from '../../platform/store/send.ts';
import { compact, pick } from '../../platform/store/items.ts';
import { ENTITY, keys, patterns } from '../../platform/store/keys.ts';

/** A webhook endpoint as stored; `sealedSecret` is its signing secret, envelope-encrypted like a secret value. */
export interface EndpointItem {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  secretHint: string;
  createdAt: string;
  updatedAt: string;
  disabledAt: string | null;
  disabledReason: string | null;
  consecutiveFailures: number;
  failingSince: string | null;
  accountId: string;
  /** Until when the secret a rotation replaced still signs (absent or null: no previous secret). */
  previousSecretExpiresAt?: string | null;
}

/**
 * The endpoint with its sealed signing secrets: the current one, and after a rotation with an overlap the one it
 * replaced (sealed under the same context), which signs beside it until `previousSecretExpiresAt`.
 */
export type StoredEndpoint = EndpointItem & { sealedSecret: SealedValue; previousSealedSecret?: SealedValue | undefined };

const FIELDS: readonly (keyof EndpointItem)[] = [
  'id',
  'url',
  'events',
  'description',
  'enabled',
  'secretHint',
  'createdAt',
  'updatedAt',
  'disabledAt',
  'disabledReason',
  'consecutiveFailures',
  'failingSince',
  'accountId',
  'previousSecretExpiresAt',
];

/** At most this many endpoints per workspace (api.md section 8). */
export const MAX_ENDPOINTS = 20;

export const toEndpoint = (item: Record<string, unknown> | undefined): StoredEndpoint | undefined =>
  item && {
    ...pick<EndpointItem>(item, FIELDS)!,
    consecutiveFailures: Number(item.consecutiveFailures ?? 0),
    sealedSecret: item.sealedSecret as SealedValue,
    ...(item.previousSealedSecret ? { previousSealedSecret: item.previousSealedSecret as SealedValue } : {}),
  };

/*
 * Webhook endpoints. The methods come in one factory per kind of caller (the webhooks route group here, the fan-out
 * and the worker in endpoint-pipeline-store.ts, and `makeEndpointReader` for the one read they share), so that a
 * function's bundle holds only the methods it calls: each function's composition puts together the factories it needs.
 */

/** The per-workspace endpoint counter's change in a transaction: creation counts up under the cap, deletion down. */
function endpointCounter(db: Db, workspaceId: string, delta: 1 | -1) {
  return countBy(db, keys.webhookEndpointCount(workspaceId), {
    delta,
    type: ENTITY.webhookEndpointCount,
    ...(delta === 1 ? { max: MAX_ENDPOINTS } : {}),
  });
}

/** After a conditional change of an endpoint failed: NOT_FOUND when it is gone, else CONFLICT (it changed since read). */
async function changedOrGone(db: Db, workspaceId: string, endpointId: string, change: string): Promise<never> {
  if (!(await getItem(db, keys.webhookEndpoint(workspaceId, endpointId))))
    throw new NotFoundError(`webhook endpoint ${endpointId} was not found`);
  throw new ConflictError(`webhook endpoint ${endpointId} changed while ${change}; read it again and retry`);
}

/** Reading one endpoint: the API (both route groups) and the worker do. */
export function makeEndpointReader(db: Db) {
  return {
    /** The endpoint, from `prefetched` when it was read ahead with the credential. */
    async getEndpoint(workspaceId: string, endpointId: string, prefetched?: Prefetched): Promise<StoredEndpoint | undefined> {
      return toEndpoint(await readItem(db, keys.webhookEndpoint(workspaceId, endpointId), prefetched));
    },
  };
}

/** What the webhooks route group does with endpoints: creation under the per-workspace cap, changes, deletion. */
export function makeEndpointApiStore(db: Db, pager: Pager) {
  return {
    ...makeEndpointReader(db),

    /** What a read of an endpoint by id needs, to be read ahead with the credential: the endpoint. */
    endpointByIdKeys(workspaceId: string, endpointId: string): ItemKey[] {
      return [keys.webhookEndpoint(workspaceId, endpointId)];
    },

    /** The workspace's endpoints, newest first, one page at a time. */
    async listEndpointPage(workspaceId: string, page: PageRequest) {
      const result = await pager.queryPage({
        scope: `webhooks:${workspaceId}`,
        ...patterns.webhookEndpointsByWorkspace(workspaceId),
        ...page,
      });
      return { ...result, items: result.items.map((item) => toEndpoint(item)!) };
    },

    /** The endpoint, the cap counter and the audit entry together; the 21st endpoint is LIMIT_EXCEEDED. */
    async createEndpoint(workspaceId: string, endpoint: StoredEndpoint, audit: AuditEntry): Promise<void> {
      const failed = await transact(
        db,
        [
          endpointCounter(db, workspaceId, 1),
          {
            Put: {
              TableName: db.tableName,
              Item: { ...keys.webhookEndpoint(workspaceId, endpoint.id), type: ENTITY.webhookEndpoint, workspaceId, ...compact(endpoint) },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      if (failed === 0) throw new LimitExceededError(`webhooks: a workspace has at most ${MAX_ENDPOINTS} endpoints`);
    },

    /**
     * Writes the fields a PATCH may change, with its audit entry, only if the endpoint is as the caller read it
     * (`readUpdatedAt`): a switch-off or another change in between is a CONFLICT, never silently undone. The failure
     * streak is only written when enabling resets it, so the worker's concurrent counting is never overwritten.
     */
    async updateEndpoint(
      workspaceId: string,
      endpoint: StoredEndpoint,
      readUpdatedAt: string,
      resetStreak: boolean,
      audit: AuditEntry,
    ): Promise<void> {
      const fields = {
        url: endpoint.url,
        events: endpoint.events,
        description: endpoint.description,
        enabled: endpoint.enabled,
        disabledAt: endpoint.disabledAt,
        disabledReason: endpoint.disabledReason,
        updatedAt: endpoint.updatedAt,
      };
      const names = Object.fromEntries(Object.keys(fields).map((field) => [`#${field}`, field]));
      const values = Object.fromEntries(Object.entries(fields).map(([field, value]) => [`:${field}`, value]));
      const set = Object.keys(fields)
        .map((field) => `#${field} = :${field}`)
        .join(', ');
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.webhookEndpoint(workspaceId, endpoint.id),
              UpdateExpression: resetStreak ? `SET ${set}, consecutiveFailures = :zero REMOVE failingSince` : `SET ${set}`,
              ConditionExpression: 'attribute_exists(PK) AND #updatedAt = :read',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ...values, ':read': readUpdatedAt, ...(resetStreak ? { ':zero': 0 } : {}) },
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      if (failed !== undefined) await changedOrGone(db, workspaceId, endpoint.id, 'it was being updated');
    },

    /**
     * Writes a rotation (`endpoint` as it becomes: the new sealed secret and hint, and the previous secret with its
     * expiry, or none, whose attributes are then removed) with its audit entry, only if the endpoint is as the caller
     * read it: the same `updatedAt` and the same current secret, so neither a PATCH nor another rotation in between
     * is silently undone (two rotations in one millisecond share an `updatedAt`: without the secret in the condition
     * both would pass, and one caller would hold a secret that never signs). Else NOT_FOUND or CONFLICT.
     */
    async rotateEndpointSecret(
      workspaceId: string,
      endpoint: StoredEndpoint,
      read: { updatedAt: string; secret: SealedValue },
      audit: AuditEntry,
    ): Promise<void> {
      const keep =
        endpoint.previousSealedSecret && endpoint.previousSecretExpiresAt
          ? { previous: endpoint.previousSealedSecret, until: endpoint.previousSecretExpiresAt }
          : undefined;
      const set = 'sealedSecret = :sealed, secretHint = :hint, updatedAt = :updatedAt';
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.webhookEndpoint(workspaceId, endpoint.id),
              UpdateExpression: keep
                ? `SET ${set}, previousSealedSecret = :previous, previousSecretExpiresAt = :until`
                : `SET ${set} REMOVE previousSealedSecret, previousSecretExpiresAt`,
              ConditionExpression: 'attribute_exists(PK) AND updatedAt = :read AND sealedSecret.ciphertext = :readCiphertext',
              ExpressionAttributeValues: {
                ':sealed': endpoint.sealedSecret,
                ':hint': endpoint.secretHint,
                ':updatedAt': endpoint.updatedAt,
                ':read': read.updatedAt,
                ':readCiphertext': read.secret.ciphertext,
                ...(keep ? { ':previous': keep.previous, ':until': keep.until } : {}),
              },
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      if (failed !== undefined) await changedOrGone(db, workspaceId, endpoint.id, 'its secret was being rotated');
    },

    async deleteEndpoint(workspaceId: string, endpointId: string, audit: AuditEntry): Promise<void> {
      const failed = await transact(
        db,
        [
          {
            Delete: {
              TableName: db.tableName,
              Key: keys.webhookEndpoint(workspaceId, endpointId),
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
          endpointCounter(db, workspaceId, -1),
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      if (failed === 0) throw new NotFoundError(`webhook endpoint ${endpointId} was not found`);
    },
  };
}

export type EndpointReader = ReturnType<typeof makeEndpointReader>;
export type EndpointApiStore = ReturnType<typeof makeEndpointApiStore>;
