import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { auditPut, systemAuditEntry, type AuditEntry } from '../../audit/index.ts';
import { iso } from '../../platform/clock.ts';
import { sendConditional, transact, type TransactItem } from '../../platform/store/conditional.ts';
import { keys } from '../../platform/store/keys.ts';
import { getItem } from '../../platform/store/reads.ts';
import type { Db } from '../../platform/store/send.ts';
import type { AuditStreamRecord, StreamDeliveryError } from '../stream-records.ts';
import { auditStreamOfItem } from '../stream-store.ts';

/**
 * A stream's delivery health on its own item (decisions.md v1.4, "Audit streams and tamper evidence"): when it last
 * delivered, since when it fails and why, and, after 3 days of failing, `disabled` with a system audit entry. The
 * API's fields are the service's; the worker writes only these (and the status, once, when it disables the stream).
 * The item changes at most once a minute while its state holds, so a busy stream costs one write a minute, not one
 * per batch.
 */

/** How long a stream fails before it is disabled (WEBHOOK_TIME_SCALE shrinks it). */
export const DISABLE_AFTER_MS = 3 * 24 * 3_600_000;
/**
 * A success on a healthy stream, or the same failure again, rewrites the item only once this long after the last
 * write: `lastDeliveredAt` (and `lastError.at`) are then right to the minute, for at most one write a minute.
 */
export const HEALTH_WRITE_EVERY_MS = 60_000;
/** The longest reason kept in `lastError`. */
const MAX_REASON = 200;

/** What one delivery to a stream came to. */
export type DeliveryResult = { ok: true; statusCode?: number } | { ok: false; statusCode: number | null; reason: string };

/** What an outcome changes on the stream's item. */
export type HealthChange =
  | { kind: 'delivered'; at: string }
  | { kind: 'failed'; at: string; lastError: StreamDeliveryError }
  | { kind: 'disabled'; at: string; lastError: StreamDeliveryError; failingSince: string; audit: AuditEntry };

/**
 * What `result` changes on `stream` at `now` (epoch ms), or undefined when nothing worth a write: a success clears
 * the failure; a failure starts the window or, once the window (× `timeScale`) has passed, disables the stream.
 */
export function healthChange(stream: AuditStreamRecord, result: DeliveryResult, now: number, timeScale: number): HealthChange | undefined {
  const at = iso(now);
  if (result.ok) {
    const healthy = stream.failingSince === undefined && stream.lastError === undefined;
    return healthy && recent(stream.lastDeliveredAt, now) ? undefined : { kind: 'delivered', at };
  }
  const lastError = { statusCode: result.statusCode, reason: safeReason(result.reason), at };
  const since = stream.failingSince;
  if (since !== undefined && now - Date.parse(since) >= DISABLE_AFTER_MS * timeScale) {
    const metadata = { auditStreamId: stream.id, type: stream.type, status: 'disabled', reason: 'failing', failingSince: since };
    const audit = systemAuditEntry(stream.accountId, 'audit_stream.update', stream.id, metadata, now);
    return { kind: 'disabled', at, lastError, failingSince: since, audit };
  }
  const same = stream.lastError?.statusCode === lastError.statusCode && stream.lastError.reason === lastError.reason;
  return since !== undefined && same && recent(stream.lastError?.at, now) ? undefined : { kind: 'failed', at, lastError };
}

/** True when `at` is less than HEALTH_WRITE_EVERY_MS before `now`. */
function recent(at: string | undefined, now: number): boolean {
  return at !== undefined && now - Date.parse(at) < HEALTH_WRITE_EVERY_MS;
}

/**
 * A failure's reason as stored and answered: cut short, and any url query dropped. The reasons are made by the SSRF
 * guard and the sender (codes, statuses, a host), but `lastError` is answered to every admin, and a query may carry a
 * customer's token: this holds even if a reason ever quotes a url.
 */
export function safeReason(reason: string): string {
  const text = reason.replace(/\?[^\s)]*/g, '?…');
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}

/** Reading a stream for delivery and recording what each delivery came to. */
export function makeStreamHealthStore(db: Db) {
  return {
    /** The stream with its health (a consistent read, so a stream just enabled is seen so); undefined when deleted. */
    async getStream(workspaceId: string, streamId: string): Promise<AuditStreamRecord | undefined> {
      return auditStreamOfItem(await getItem(db, keys.auditStream(workspaceId, streamId)));
    },

    /**
     * Writes `change` (one UpdateItem; a disabling with its audit entry in one transaction). False when the item no
     * longer allowed it: deleted, or (for a disabling) enabled again or disabled by another delivery meanwhile.
     */
    async record(workspaceId: string, streamId: string, change: HealthChange): Promise<boolean> {
      const update = healthUpdate(db, workspaceId, streamId, change);
      if (change.kind !== 'disabled') return (await sendConditional(db, new UpdateCommand(update.Update as never))) !== undefined;
      return (await transact(db, [update, auditPut(db, workspaceId, change.audit)], [0])) === undefined;
    },
  };
}

export type StreamHealthStore = ReturnType<typeof makeStreamHealthStore>;

/**
 * The UpdateItem of a change, conditional on the stream's existence (an UpdateItem would otherwise make a stub of a
 * deleted stream). A failure keeps the `failingSince` on the item (`if_not_exists`), so one that PATCH `active`
 * cleared meanwhile starts again now rather than at the old time; a disabling holds only while the stream is active
 * with the window it was decided on, and counts as a revision (a PATCH read before it is then a CONFLICT).
 */
function healthUpdate(db: Db, workspaceId: string, streamId: string, change: HealthChange): TransactItem & { Update: object } {
  const base = { TableName: db.tableName, Key: keys.auditStream(workspaceId, streamId) };
  if (change.kind === 'delivered') {
    const expression = 'SET lastDeliveredAt = :at REMOVE failingSince, lastError';
    return {
      Update: {
        ...base,
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': change.at },
      },
    };
  }
  if (change.kind === 'failed') {
    const expression = 'SET failingSince = if_not_exists(failingSince, :at), lastError = :error';
    const values = { ':at': change.at, ':error': change.lastError };
    return {
      Update: { ...base, UpdateExpression: expression, ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: values },
    };
  }
  return {
    Update: {
      ...base,
      UpdateExpression: 'SET #status = :disabled, lastError = :error, updatedAt = :at, #revision = #revision + :one',
      ConditionExpression: 'attribute_exists(PK) AND #status = :active AND failingSince = :since',
      ExpressionAttributeNames: { '#status': 'status', '#revision': 'revision' },
      ExpressionAttributeValues: {
        ':disabled': 'disabled',
        ':active': 'active',
        ':since': change.failingSince,
        ':error': change.lastError,
        ':at': change.at,
        ':one': 1,
      },
    },
  };
}
