import type { SealedValue } from '../platform/crypto/envelope.ts';
import type { TransactItem } from '../platform/store/conditional.ts';
import { ENTITY, keys } from '../platform/store/keys.ts';
import { toStored } from '../platform/store/sealed.ts';
import type { Db } from '../platform/store/send.ts';

/**
 * An environment's value items (what loading an environment reads, environment-value-store.ts) as the writes and
 * deletes of a secret keep them in step, in their own transactions.
 */

/** A secret's current value as loading an environment reads it. */
export interface EnvironmentValue {
  id: string;
  key: string;
  version: number;
  sealed: SealedValue;
  /** `base64` for a binary value (shared/secrets/secret-record.ts). */
  encoding?: 'base64';
  /** The distinct targets of its references, when it has any (the marker an environment load resolves by). */
  references?: string[];
}

/**
 * The transaction item that keeps an environment's value item in step with a write. Unconditional: the head's
 * condition in the same transaction already settles the race. Secrets written before these items existed get
 * theirs when their environment is first loaded (`indexEnvironmentValues`).
 */
export function environmentValuePut(db: Db, workspaceId: string, value: EnvironmentValue & { environmentId: string }): TransactItem {
  const { environmentId, sealed, ...rest } = value;
  return {
    Put: {
      TableName: db.tableName,
      Item: {
        ...keys.environmentValue(workspaceId, environmentId, value.key),
        type: ENTITY.environmentValue,
        ...rest,
        sealed: toStored(sealed),
      },
    },
  };
}

/** The transaction item that removes it with the secret. */
export function environmentValueDelete(db: Db, workspaceId: string, environmentId: string, key: string): TransactItem {
  return { Delete: { TableName: db.tableName, Key: keys.environmentValue(workspaceId, environmentId, key) } };
}
