import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from './conditional.ts';
import { ENTITY, keys } from './keys.ts';
import { getItem } from './reads.ts';
import type { Db } from './send.ts';

/** The sealed service MAC key as stored. */
export interface SealedMacKey {
  /** The key wrapped by the key provider under `macKeyContext()`. */
  sealed: Buffer;
}

/** Where the sealed key lives: read by the functions, created by the operator's tools (admin CLI, local stack). */
export interface MacKeyStore {
  getMacKey(): Promise<SealedMacKey | undefined>;
  /** Stores a new sealed key unless one exists; answers false when one did (then read that one). */
  createMacKey(sealed: Buffer): Promise<boolean>;
}

/**
 * The sealed service MAC key item (`keys.macKey()`). The functions only read it; the admin CLI and the local stack
 * make it, with operator credentials, so no function role is ever granted a write to it.
 */
export function makeMacKeyStore(db: Db): MacKeyStore {
  return {
    async getMacKey() {
      const item = await getItem(db, keys.macKey());
      return item && { sealed: Buffer.from(item.sealed as string, 'base64') };
    },
    async createMacKey(sealed: Buffer) {
      const made = await sendConditional(
        db,
        new PutCommand({
          TableName: db.tableName,
          Item: { ...keys.macKey(), type: ENTITY.macKey, sealed: sealed.toString('base64'), createdAt: new Date().toISOString() },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return made !== undefined;
    },
  };
}
