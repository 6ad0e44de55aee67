import { TransactWriteCommand, type NativeAttributeValue, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { idempotencyScope } from '../idempotency-scope.ts';
import type { ItemKey } from '../prefetch.ts';
import { send, TransactionContentionError, type Db } from './send.ts';

/**
 * The one place where a failed write condition becomes an outcome. Every conditional write of the data layer goes
 * through `transact` (several items, all or nothing) or `sendConditional` (one item); callers name the conditions
 * they give a meaning and never catch SDK errors themselves.
 */

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What `transact` answers when `contention: 'handled'` and a concurrent transaction got in the way. */
export const CONTENTION = -1;

/** True when a transaction was cancelled because the condition of item `index` failed. */
export function conditionFailedAt(error: unknown, index: number): boolean {
  const reasons = (error as { name?: string; CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (error as { name?: string }).name === 'TransactionCanceledException' && reasons?.[index]?.Code === 'ConditionalCheckFailed';
}

/**
 * What a transaction's item `index` found when its condition failed and it asked for it
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`): the item, null when there was none, undefined when its
 * condition did not fail (or the transaction was not cancelled by conditions).
 */
export function oldItemAt(error: unknown, index: number): Record<string, unknown> | null | undefined {
  if (!conditionFailedAt(error, index)) return undefined;
  const item = (error as { CancellationReasons: { Item?: Record<string, NativeAttributeValue> }[] }).CancellationReasons[index]!.Item;
  return item ? unmarshall(item as never) : null;
}

/**
 * Runs one write transaction. Answers undefined when it committed, or the index of the item whose condition failed
 * when it is one of `handled`. With `contention: 'handled'`, a transaction cancelled by a concurrent one answers
 * CONTENTION instead of throwing SERVICE_UNAVAILABLE: for writers that read again and retry (secret versions). Any
 * other failure is thrown as it is. `cancelled` sees the failure first (to read what a failed item found: oldItemAt).
 */
export async function transact(
  db: Db,
  items: TransactItem[],
  handled: readonly number[],
  options: { contention?: 'handled'; cancelled?: (error: unknown) => void } = {},
): Promise<number | undefined> {
  // A request with an Idempotency-Key records its answer in the same transaction as its change.
  const scope = idempotencyScope();
  const completion = scope && scope.answer !== undefined && !scope.committed ? await scope.completion(scope.answer) : undefined;
  try {
    await send(db, new TransactWriteCommand({ TransactItems: completion ? [...items, completion.item as TransactItem] : items }));
    if (completion) Object.assign(scope!, { committed: true, recordedBody: completion.body });
    return undefined;
  } catch (error) {
    options.cancelled?.(error);
    if (options.contention === 'handled' && error instanceof TransactionContentionError) return CONTENTION;
    const index = handled.find((i) => conditionFailedAt(error, i));
    if (index === undefined) throw error;
    return index;
  }
}

/**
 * Sends one conditional write (Put, Update or Delete). Answers its output, or undefined when its condition failed,
 * so the caller maps "the condition did not hold" to its own outcome; any other failure is thrown.
 */
export async function sendConditional<T extends object = Record<string, unknown>>(db: Db, command: object): Promise<T | undefined> {
  const sent = await sendConditionalOrOld<T>(db, command);
  return sent.written ? sent.output : undefined;
}

/**
 * `sendConditional` for a write sent with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`: when its condition
 * failed, answers the item that failed it (no read needed, and none billed), or undefined when there was none.
 */
export async function sendConditionalOrOld<T extends object = Record<string, unknown>>(
  db: Db,
  command: object,
): Promise<{ written: true; output: T } | { written: false; old: Record<string, unknown> | undefined }> {
  try {
    return { written: true, output: await send<T>(db, command) };
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    const old = (error as { Item?: Record<string, NativeAttributeValue> }).Item;
    return { written: false, old: old && unmarshall(old as never) };
  }
}

/** A transaction item that updates the item at `key` (which must exist) when `condition` holds there too. */
export function updateIf(db: Db, key: ItemKey, update: { set: string; condition: string; values: Record<string, unknown> }): TransactItem {
  return {
    Update: {
      TableName: db.tableName,
      Key: key,
      UpdateExpression: `SET ${update.set}`,
      ConditionExpression: `attribute_exists(PK) AND (${update.condition})`,
      ExpressionAttributeValues: update.values,
    },
  };
}

/**
 * A transaction item that adds `delta` to the counter at `key`; with `max`, it cancels the transaction when the
 * counter has reached it, which makes a count cap safe under concurrency; with `ttl` (epoch seconds), the counter
 * expires then (a windowed counter).
 */
export function countBy(db: Db, key: ItemKey, counter: { delta: number; type: string; max?: number; ttl?: number }): TransactItem {
  const capped = counter.max !== undefined;
  const expires = counter.ttl !== undefined;
  return {
    Update: {
      TableName: db.tableName,
      Key: key,
      UpdateExpression: `ADD #count :delta SET #type = :type${expires ? ', #ttl = :ttl' : ''}`,
      ...(capped ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' } : {}),
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type', ...(expires ? { '#ttl': 'ttl' } : {}) },
      ExpressionAttributeValues: {
        ':delta': counter.delta,
        ':type': counter.type,
        ...(capped ? { ':max': counter.max } : {}),
        ...(expires ? { ':ttl': counter.ttl } : {}),
      },
    },
  };
}

/** A transaction item that cancels the transaction unless the item at `key` exists. */
export function mustExist(db: Db, key: ItemKey): TransactItem {
  return { ConditionCheck: { TableName: db.tableName, Key: key, ConditionExpression: 'attribute_exists(PK)' } };
}
