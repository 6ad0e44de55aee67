import { RateLimitedError } from '../errors.ts';
import type { TransactItem } from './conditional.ts';
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
 * The two counter items of a reveal: the credential's and the workspace's, each refusing (its condition failing)
 * once its limit is reached. They expire with DynamoDB TTL after the window.
 */
export function revealCounters(db: Db, workspaceId: string, limit: RevealLimit): [TransactItem, TransactItem] {
  const minute = Math.floor(limit.now / 60_000);
  const count = (key: { PK: string; SK: string }, max: number): TransactItem => ({
    Update: {
      TableName: db.tableName,
      Key: key,
      UpdateExpression: 'ADD #count :one SET #type = :type, #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':limit': max, ':type': ENTITY.revealCounter, ':ttl': (minute + 2) * 60 },
    },
  });
  return [count(keys.revealCounter(workspaceId, limit.credentialId, minute), limit.perMinute), count(keys.workspaceRevealCounter(workspaceId, minute), limit.workspacePerMinute)];
}

/** RATE_LIMITED for the counter that refused (0: the credential's, 1: the workspace's), with Retry-After to the window's end. */
export function revealLimitError(which: number, limit: RevealLimit): RateLimitedError {
  const retryAfter = ((Math.floor(limit.now / 60_000) + 1) * 60_000 - limit.now) / 1000;
  return which === 0
    ? new RateLimitedError(`reveals: at most ${limit.perMinute} per minute per credential`, retryAfter)
    : new RateLimitedError(`reveals: at most ${limit.workspacePerMinute} per minute for the workspace`, retryAfter);
}
