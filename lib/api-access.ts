import { IDEMPOTENT_ANSWER_CONTEXT, MAC_KEY_CONTEXT, MAC_KEY_PURPOSES } from '../shared/platform/crypto/context.ts';
import type { KeyAccess } from './service-function.ts';
import { type AttributeUpdate, PARTITIONS as P, type TableAccess, type TableAction, TOKEN_LAST_USED } from './table-access.ts';

/**
 * The parts every API function's access is made of (lib/access.ts, and the access of a route group kept in a file of
 * its own: lib/change-request-access.ts): authentication, cursors, idempotency records, lastUsedAt and the MAC roots.
 */

export interface FunctionAccess {
  /** @default no table access at all */
  readonly table?: TableAccess;
  /** Uses of the KMS key, each under its own encryption context. */
  readonly keys?: readonly KeyAccess[];
  /** Queues delivery attempts: sqs:SendMessage on the delivery queue, whose URL goes into its environment. */
  readonly sendsDeliveries?: true;
  /** Queues rotation steps: sqs:SendMessage on the rotation queue, whose URL goes into its environment. */
  readonly sendsRotations?: true;
  /** Queues sync pushes: sqs:SendMessage on the sync queue, whose URL goes into its environment. */
  readonly sendsSyncs?: true;
  /** Queues audit entries for audit streams: sqs:SendMessage on the audit stream queue, its URL in the environment. */
  readonly sendsAuditStreams?: true;
  /** Reads the audit digest key's public key: kms:GetPublicKey on that key alone, its ARN in the environment. */
  readonly readsDigestPublicKey?: true;
}

export type Items = Partial<Record<TableAction, readonly string[]>>;

/**
 * Authentication, in every API function: one BatchGetItem of the token item and workspace record (with the route's
 * prefetch keys), or on the reveal routes the token alone (GetItem; an `st_` token: with the workspace, BatchGetItem)
 * beside an eventual batch; and the sealed MAC roots (GetItem, once per container): token checksums, idempotency.
 */
const AUTHENTICATION: Items = { BatchGetItem: [P.token, P.workspace], GetItem: [P.token, P.macKey] };

/** Lists sign their cursors: the cursor-signing key is read, and made (a conditional put) by the first function to need it. */
const CURSORS: Items = { GetItem: [P.cursorKey], PutItem: [P.cursorKey] };

/** An Idempotency-Key on a route that changes state: the record is claimed (put), read, completed and released (updates). */
const IDEMPOTENCY: Items = { GetItem: [P.idempotency], PutItem: [P.idempotency], UpdateItem: [P.idempotency] };

/**
 * A credential's lastUsedAt, at most once a minute: one transaction of two updates, its token item and its record
 * (`AK#`/`APIKEY#` in the workspace partition), each naming nothing but lastUsedAt.
 */
const LAST_USED: AttributeUpdate = { partitions: [P.token, P.workspace], attributes: [TOKEN_LAST_USED] };

/** Action by action, the partitions of every part (no repeats, in order). */
export function merge(...parts: Items[]): Items {
  const merged: Partial<Record<TableAction, string[]>> = {};
  for (const part of parts) {
    for (const [action, partitions] of Object.entries(part) as [TableAction, readonly string[]][]) {
      merged[action] = [...new Set([...(merged[action] ?? []), ...partitions])];
    }
  }
  return merged;
}

/**
 * An API function's table access: its own, plus authentication, cursors, idempotency records (unless it has no
 * route that changes state) and lastUsedAt (on the partitions it may not already update in full).
 */
export function api(own: Omit<TableAccess, 'items'> & { items: Items; idempotent?: false }): TableAccess {
  const { idempotent, ...access } = own;
  const items = merge(AUTHENTICATION, CURSORS, ...(idempotent === false ? [] : [IDEMPOTENCY]), own.items);
  const lastUsed = LAST_USED.partitions.filter((partition) => !items.UpdateItem?.includes(partition));
  const attributeUpdates = [...(lastUsed.length > 0 ? [{ ...LAST_USED, partitions: lastUsed }] : []), ...(own.attributeUpdates ?? [])];
  return { ...access, items, attributeUpdates };
}

/** Sealing and opening recorded answers that carry a one-time secret (a token, a signing secret). */
export const IDEMPOTENT_ANSWER_KEY: KeyAccess = { actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: IDEMPOTENT_ANSWER_CONTEXT };

/**
 * Unsealing the two MAC roots (shared/platform/crypto/mac-key.ts): Decrypt under exactly `{purpose}`, its value
 * `service-mac-key` or `token-checksum-key`, and under no other context.
 */
export const MAC_KEY: KeyAccess = {
  actions: ['kms:Decrypt'],
  contextKeys: MAC_KEY_CONTEXT,
  contextValues: { purpose: Object.values(MAC_KEY_PURPOSES) },
};
