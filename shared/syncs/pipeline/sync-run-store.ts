import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditEntry, auditPut } from '../../audit/index.ts';
import { sendConditional, transact, type TransactItem } from '../../platform/store/conditional.ts';
import { ENTITY, keys } from '../../platform/store/keys.ts';
import { getItem } from '../../platform/store/reads.ts';
import type { Db } from '../../platform/store/send.ts';
import type { SyncRecord, SyncStatus } from '../sync-records.ts';
import { syncOfItem } from '../sync-store.ts';

/**
 * What the sync worker keeps on a sync's item besides what the API writes (decisions.md v1.4, "Syncs"): its lease
 * (one push of a sync at a time, so an older value never lands after a newer one), the outcome of each push (status,
 * lastSyncedAt, lastError, failingSince; never `revision`, which counts the API's changes) and, apart, the keys it
 * wrote (for `prune`). Every update holds only while the lease is the worker's own.
 */

/** A sync as the worker reads it: the record, and the push marks the API never answers. */
export interface RunnableSync extends SyncRecord {
  /** Start of the last full push that succeeded (epoch ms): a change seen before it was pushed with it or after. */
  pushedThrough: number;
}

/** What a push did, as its item records it. */
export interface PushOutcome {
  status: SyncStatus;
  lastSyncedAt: string | null;
  lastError: string | null;
  failingSince: string | null;
  /** Set after a full push that succeeded: when it started. */
  pushedThrough?: number;
  /** The keys the sync has written at its destination after this push (unchanged when absent). */
  written?: ReadonlySet<string>;
  /** Whether the status change is audited (`sync.update` by the service, the source of `service.sync.failed|recovered`). */
  audit?: AuditEntry;
}

export function makeSyncRunStore(db: Db) {
  const syncKey = keys.sync;
  const heldBy = { condition: '#leaseOwner = :owner', names: { '#leaseOwner': 'leaseOwner' } };
  /** Gives the lease back (conditional on this push holding it: another's lease is left alone). */
  async function releaseLease(workspaceId: string, syncId: string, owner: string): Promise<void> {
    await sendConditional(
      db,
      new UpdateCommand({
        TableName: db.tableName,
        Key: syncKey(workspaceId, syncId),
        UpdateExpression: 'REMOVE #leaseOwner, #leaseUntil',
        ConditionExpression: heldBy.condition,
        ExpressionAttributeNames: { ...heldBy.names, '#leaseUntil': 'leaseUntil' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  }

  return {
    /** The sync with its push marks (a consistent read); undefined when it was deleted. */
    async getRunnableSync(workspaceId: string, syncId: string): Promise<RunnableSync | undefined> {
      const item = await getItem(db, syncKey(workspaceId, syncId));
      const sync = syncOfItem(item);
      return sync && { ...sync, pushedThrough: typeof item!.pushedThrough === 'number' ? item!.pushedThrough : 0 };
    },

    /** Takes the sync's lease until `until` unless another push holds it; false when it does (or the sync is gone). */
    async takeLease(workspaceId: string, syncId: string, owner: string, now: number, until: number): Promise<boolean> {
      const out = await sendConditional(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: syncKey(workspaceId, syncId),
          UpdateExpression: 'SET #leaseOwner = :owner, #leaseUntil = :until',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :now)',
          ExpressionAttributeNames: { '#leaseOwner': 'leaseOwner', '#leaseUntil': 'leaseUntil' },
          ExpressionAttributeValues: { ':owner': owner, ':until': until, ':now': now },
        }),
      );
      return out !== undefined;
    },

    /**
     * Records a push's outcome and gives the lease back, with its audit entry when the status changed, in one
     * transaction; false when the lease was no longer this push's (it ran past it: the next push records its own) or
     * the sync was paused meanwhile (then only the lease is given back).
     */
    async finishPush(workspaceId: string, syncId: string, owner: string, outcome: PushOutcome): Promise<boolean> {
      const sets = ['#status = :status', 'lastSyncedAt = :synced', 'lastError = :error', 'failingSince = :since'];
      const values: Record<string, unknown> = {
        ':owner': owner,
        ':status': outcome.status,
        ':synced': outcome.lastSyncedAt,
        ':error': outcome.lastError,
        ':since': outcome.failingSince,
        ':paused': 'paused',
      };
      if (outcome.pushedThrough !== undefined) {
        sets.push('pushedThrough = :through');
        values[':through'] = outcome.pushedThrough;
      }
      const update: TransactItem = {
        Update: {
          TableName: db.tableName,
          Key: syncKey(workspaceId, syncId),
          UpdateExpression: `SET ${sets.join(', ')} REMOVE #leaseOwner, #leaseUntil`,
          // A sync paused while this push ran stays paused: the push records nothing (it only gives the lease back).
          ConditionExpression: `attribute_exists(PK) AND ${heldBy.condition} AND #status <> :paused`,
          ExpressionAttributeNames: { ...heldBy.names, '#leaseUntil': 'leaseUntil', '#status': 'status' },
          ExpressionAttributeValues: values,
        },
      };
      const items = [update, ...(outcome.written ? [writtenKeysItem(db, workspaceId, syncId, outcome.written)] : [])];
      if (outcome.audit) items.push(auditPut(db, workspaceId, outcome.audit));
      // Most pushes change the sync's item alone: one UpdateItem, at half a transaction's write units.
      const done =
        items.length === 1
          ? (await sendConditional(db, new UpdateCommand(update.Update as never))) !== undefined
          : (await transact(db, items, [0])) === undefined;
      if (done) return true;
      await releaseLease(workspaceId, syncId, owner);
      return false;
    },

    /** Gives the lease back without recording anything (the sync was paused, or there was nothing to push). */
    releaseLease,

    /** The keys the sync wrote at its destination (empty before its first push). */
    async getWrittenKeys(workspaceId: string, syncId: string): Promise<Set<string>> {
      const written = (await getItem(db, keys.syncWritten(workspaceId, syncId)))?.keys;
      return written instanceof Set ? new Set([...written].map(String)) : new Set();
    },
  };
}

/**
 * The item of the keys a sync wrote, put whole (it changes only under the sync's lease, in the push's own
 * transaction, so a deleted sync never gets one back); none when it wrote nothing (DynamoDB has no empty set).
 */
function writtenKeysItem(db: Db, workspaceId: string, syncId: string, written: ReadonlySet<string>): TransactItem {
  const key = keys.syncWritten(workspaceId, syncId);
  if (written.size === 0) return { Delete: { TableName: db.tableName, Key: key } };
  return { Put: { TableName: db.tableName, Item: { ...key, type: ENTITY.syncWritten, keys: new Set(written) } } };
}

export type SyncRunStore = ReturnType<typeof makeSyncRunStore>;
