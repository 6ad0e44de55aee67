import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendConditional } from './conditional.ts';
import { ENTITY, keys } from './keys.ts';
import { send, type Db } from './send.ts';
import { loadOnce } from '../on-first-use.ts';

/**
 * The HMAC key that signs cursors. It is made once per table (a conditional put, so concurrent cold starts agree)
 * and read once per container.
 */
export function makeCursorKeyLoader(db: Db): () => Promise<Buffer> {
  const load = async (): Promise<Buffer> => {
    const existing = await send<{ Item?: { key: string } }>(
      db,
      new GetCommand({ TableName: db.tableName, Key: keys.cursorSigningKey(), ConsistentRead: true }),
    );
    if (existing.Item) return Buffer.from(existing.Item.key, 'base64');
    const key = randomBytes(32).toString('base64');
    const made = await sendConditional(
      db,
      new PutCommand({
        TableName: db.tableName,
        Item: { ...keys.cursorSigningKey(), type: ENTITY.cursorSigningKey, key, createdAt: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    // Another container made it first: use theirs.
    return made ? Buffer.from(key, 'base64') : load();
  };
  return loadOnce(load);
}
