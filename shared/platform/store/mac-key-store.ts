import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from './conditional.ts';
import { ENTITY, keys } from './keys.ts';
import { getItem } from './reads.ts';
import type { Db } from './send.ts';

/** The sealed service MAC roots as stored, each wrapped by the key provider under `macKeyContext(root)`. */
export interface SealedMacKey {
  service: Buffer;
  token: Buffer;
}

/** Where the sealed key lives: read by the functions, created by the operator's tools (admin CLI, local stack). */
export interface MacKeyStore {
  getMacKey(): Promise<SealedMacKey | undefined>;
  /** Stores new sealed roots unless some exist; answers false when they did (then read those). */
  createMacKey(sealed: SealedMacKey): Promise<boolean>;
}

/**
 * The sealed service MAC key item (`keys.macKey()`). The functions only read it; the admin CLI and the local stack
 * make it, with operator credentials, so no function role is ever granted a write to it.
 */
export function makeMacKeyStore(db: Db): MacKeyStore {
  return {
    async getMacKey() {
      const item = await getItem(db, keys.macKey());
      return item && { service: Buffer.from(item.service as string, 'base64'), token: Buffer.from(item.token as string, 'base64') };
    },
    async createMacKey(sealed: SealedMacKey) {
      const made = await sendConditional(
        db,
        new PutCommand({
          TableName: db.tableName,
          Item: {
            ...keys.macKey(),
            type: ENTITY.macKey,
            service: sealed.service.toString('base64'),
            token: sealed.token.toString('base64'),
            createdAt: new Date().toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return made !== undefined;
    },
  };
}
