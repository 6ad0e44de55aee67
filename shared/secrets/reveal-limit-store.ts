import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RateLimitedError } from '../platform/errors.ts';
import type { ItemKey } from '../platform/prefetch.ts';
import { sendConditionalOrOld } from '../platform/store/conditional.ts';
import { ENTITY, keys } from '../platform/store/keys.ts';
import type { Db } from '../platform/store/send.ts';

/** The limits a reveal (or a page of a bulk reveal) counts against, in one fixed one-minute window. */
export interface RevealLimit {
  credentialId: string;
  perMinute: number;
  workspacePerMinute: number;
  now: number;
}

/** Reveals this container may still make in `minute` without asking the table, and how many to ask for next. */
interface Lease {
  minute: number;
  left: number;
  grant: number;
  /** Reveals made under this lease's window, to size the first grant of the next one. */
  used: number;
  /** The refill in flight: concurrent requests of this container wait for it rather than each leasing its own. */
  refilling?: Promise<boolean>;
}

/** The largest lease: an eighth of the limit (so eight containers' leftovers cannot eat it all), at most 64. */
const maxGrant = (limit: number) => Math.max(1, Math.min(64, Math.floor(limit / 8)));

/**
 * The reveal rate limits, counted with leases. Each limit is a counter item per window (credential and minute,
 * workspace and minute) that expires with DynamoDB TTL. A container does not add 1 per reveal: it takes a lease of
 * several reveals at once with one conditional UpdateItem (`count + n` must stay within the limit) and spends it
 * locally. The first lease of a window is 1, or a quarter of what the container used in the window before; each
 * refill doubles it up to `maxGrant`; near the limit a refused lease is retried once with exactly what is left. So
 * the counter never passes the limit, and reveals never pass the counter: the limit can only get stricter (by what
 * containers leased and did not use before the window ended), never looser. A busy container pays one counter write
 * per lease instead of one per reveal, outside any transaction. Leases live as long as the store (one per container).
 */
export function makeRevealLimiter(db: Db) {
  const leases = new Map<string, Lease>();

  /**
   * One conditional ADD of `n` to the counter: true when added; otherwise the count that refused it (from the item
   * DynamoDB returns with the failed condition, so learning what is left costs no read).
   */
  async function add(key: ItemKey, minute: number, n: number, max: number): Promise<true | number> {
    const out = await sendConditionalOrOld(
      db,
      new UpdateCommand({
        TableName: db.tableName,
        Key: key,
        UpdateExpression: 'ADD #count :n SET #type = :type, #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
        ExpressionAttributeNames: { '#count': 'count', '#type': 'type', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':n': n, ':room': max - n, ':type': ENTITY.revealCounter, ':ttl': (minute + 2) * 60 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return out.written || ((out.old?.count as number | undefined) ?? 0);
  }

  /** Leases more reveals of one counter; false when none is left in the window. */
  async function refill(key: ItemKey, lease: Lease, max: number): Promise<boolean> {
    const wanted = Math.min(lease.grant, max);
    const first = await add(key, lease.minute, wanted, max);
    let granted = first === true ? wanted : 0;
    if (first !== true) {
      // Near the limit: ask once more for exactly what is left.
      const room = max - first;
      if (room > 0 && room < wanted && (await add(key, lease.minute, room, max)) === true) granted = room;
    }
    lease.left += granted;
    lease.grant = Math.min(lease.grant * 2, maxGrant(max));
    return granted > 0;
  }

  /** The lease's one refill in flight, started when none is. */
  function refillOnce(key: ItemKey, lease: Lease, max: number): Promise<boolean> {
    lease.refilling ??= refill(key, lease, max).finally(() => {
      lease.refilling = undefined;
    });
    return lease.refilling;
  }

  function leaseOf(key: ItemKey, minute: number, max: number): Lease {
    // One lease per counter (its partition key), whatever the window, so a new window can size its first lease.
    const id = key.PK;
    const lease = leases.get(id);
    if (lease?.minute === minute) return lease;
    const previous = lease?.minute === minute - 1 ? lease.used : 0;
    const fresh = { minute, left: 0, used: 0, grant: Math.max(1, Math.min(maxGrant(max), Math.floor(previous / 4))) };
    leases.set(id, fresh);
    return fresh;
  }

  /** Leases of windows that have ended are dropped, so a long-lived container's map stays small. */
  function forgetOld(minute: number) {
    if (leases.size < 1000) return;
    for (const [id, lease] of leases) if (lease.minute < minute - 1) leases.delete(id);
  }

  return {
    /**
     * Counts one reveal (or one page of a bulk reveal) against the credential's and the workspace's per-minute
     * limits, from this container's leases when they have room, else by leasing more; RATE_LIMITED (Retry-After to
     * the window's end) when either limit has no reveal left to lease. A refusal spends nothing.
     */
    async countReveal(workspaceId: string, limit: RevealLimit): Promise<void> {
      const minute = Math.floor(limit.now / 60_000);
      forgetOld(minute);
      const counters = [
        { key: keys.revealCounter(workspaceId, limit.credentialId, minute), max: limit.perMinute },
        { key: keys.workspaceRevealCounter(workspaceId, minute), max: limit.workspacePerMinute },
      ].map((counter) => ({ ...counter, lease: leaseOf(counter.key, minute, counter.max) }));
      // Refill until both leases have room at once: a concurrent request of this container may spend a lease
      // while the other one is being refilled. Checking and spending then happen with no await between them.
      // Concurrent requests share one refill (refillOnce), so a wave of them does not lease a grant each.
      for (let empty = counters.findIndex((c) => c.lease.left <= 0); empty !== -1; empty = counters.findIndex((c) => c.lease.left <= 0)) {
        const counter = counters[empty]!;
        if (!(await refillOnce(counter.key, counter.lease, counter.max))) throw revealLimitError(empty, limit);
      }
      for (const { lease } of counters) {
        lease.left--;
        lease.used++;
      }
    },
  };
}

export type RevealLimiter = ReturnType<typeof makeRevealLimiter>;

/** RATE_LIMITED for the counter that refused (0: the credential's, 1: the workspace's), with Retry-After to the window's end. */
function revealLimitError(which: number, limit: RevealLimit): RateLimitedError {
  const retryAfter = ((Math.floor(limit.now / 60_000) + 1) * 60_000 - limit.now) / 1000;
  return which === 0
    ? new RateLimitedError(`reveals: at most ${limit.perMinute} per minute per credential`, retryAfter)
    : new RateLimitedError(`reveals: at most ${limit.workspacePerMinute} per minute for the workspace`, retryAfter);
}
