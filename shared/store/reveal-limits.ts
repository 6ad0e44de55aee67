import { RateLimitedError } from '../errors.ts';
import type { ItemKey } from '../prefetch.ts';
import { transact, type TransactItem } from './conditional.ts';
import { ENTITY, keys } from './keys.ts';
import type { Db } from './send.ts';

/** The limits a reveal (or a page of a bulk reveal) counts against, in one fixed one-minute window. */
export interface RevealLimit {
  credentialId: string;
  perMinute: number;
  workspacePerMinute: number;
  now: number;
}

/**
 * Counts one reveal (or one page of a bulk reveal) in one transaction with `alongside` (a reveal's audit entry):
 * the credential's and the workspace's counters, each refusing (its condition failing) once its limit is reached,
 * and expiring with DynamoDB TTL after the window. RATE_LIMITED when either refused; then nothing is written.
 */
export async function countReveal(db: Db, workspaceId: string, limit: RevealLimit, alongside: TransactItem[] = []): Promise<void> {
  const minute = Math.floor(limit.now / 60_000);
  const count = (key: ItemKey, max: number): TransactItem => ({
    Update: {
      TableName: db.tableName,
      Key: key,
      UpdateExpression: 'ADD #count :one SET #type = :type, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':limit': max, ':type': ENTITY.revealCounter, ':ttl': (minute + 2) * 60 },
    },
  });
  const counters = [count(keys.revealCounter(workspaceId, limit.credentialId, minute), limit.perMinute), count(keys.workspaceRevealCounter(workspaceId, minute), limit.workspacePerMinute)];
  const first = alongside.length;
  const failed = await transact(db, [...alongside, ...counters], [first, first + 1]);
  if (failed !== undefined) throw revealLimitError(failed - first, limit);
}

/** RATE_LIMITED for the counter that refused (0: the credential's, 1: the workspace's), with Retry-After to the window's end. */
function revealLimitError(which: number, limit: RevealLimit): RateLimitedError {
  const retryAfter = ((Math.floor(limit.now / 60_000) + 1) * 60_000 - limit.now) / 1000;
  return which === 0
    ? new RateLimitedError(`reveals: at most ${limit.perMinute} per minute per credential`, retryAfter)
    : new RateLimitedError(`reveals: at most ${limit.workspacePerMinute} per minute for the workspace`, retryAfter);
}
