import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditEntry, auditPut } from '../audit/index.ts';
import { transact } from '../platform/store/conditional.ts';
import { ENTITY, keys } from '../platform/store/keys.ts';
import { send, type Db } from '../platform/store/send.ts';

/** One `access.denied` entry per credential, action and secret at most this often. */
export const DENIED_ENTRY_INTERVAL_MS = 60_000;
/** A counter of denied attempts lasts this long after the last one (DynamoDB TTL). */
const DENIED_TTL_SECONDS = 86_400;

/** What a denied attempt is audited with: the count of attempts the entry stands for, and when the last entry was. */
export type DeniedEntry = (counted: { count: number; since: string | null }) => AuditEntry;

/**
 * Denied attempts, audited so that a loop of them cannot flood the log. Each attempt adds 1 to its counter (one
 * UpdateItem); when the last entry for it is a minute old or more (or there is none), one transaction writes the
 * `access.denied` entry with the count of attempts since the last entry and takes that count off the counter,
 * conditional on the last entry being the one it saw, so concurrent attempts write one entry between them.
 */
export function makeDenialStore(db: Db) {
  return {
    /** Counts the attempt; answers whether it wrote an audit entry (false: counted toward the next one). */
    async recordDenial(workspaceId: string, credentialId: string, subject: string, entry: DeniedEntry, now: number): Promise<boolean> {
      const key = keys.deniedAttempts(workspaceId, credentialId, subject);
      const out = await send<{ Attributes?: { pending?: number; lastEntryAt?: string } } | undefined>(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: key,
          UpdateExpression: 'ADD #pending :one SET #type = :type, #ttl = :ttl',
          ExpressionAttributeNames: { '#pending': 'pending', '#type': 'type', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':one': 1, ':type': ENTITY.deniedAttempts, ':ttl': Math.floor(now / 1000) + DENIED_TTL_SECONDS },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const count = out?.Attributes?.pending ?? 1;
      const since = out?.Attributes?.lastEntryAt ?? null;
      if (since !== null && now - Date.parse(since) < DENIED_ENTRY_INTERVAL_MS) return false;
      const audit = entry({ count, since });
      const failed = await transact(
        db,
        [
          {
            Update: {
              TableName: db.tableName,
              Key: key,
              UpdateExpression: 'SET #last = :now ADD #pending :taken',
              ConditionExpression: since === null ? 'attribute_not_exists(#last)' : '#last = :seen',
              ExpressionAttributeNames: { '#last': 'lastEntryAt', '#pending': 'pending' },
              ExpressionAttributeValues: { ':now': audit.createdAt, ':taken': -count, ...(since !== null && { ':seen': since }) },
            },
          },
          auditPut(db, workspaceId, audit),
        ],
        [0],
      );
      return failed === undefined;
    },
  };
}

export type DenialStore = ReturnType<typeof makeDenialStore>;
