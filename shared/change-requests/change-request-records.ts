import type { SealedValue } from '../platform/crypto/envelope.ts';
import { ConflictError } from '../platform/errors.ts';

/**
 * A change request as the service keeps it (decisions.md v1.4, "Change requests"): what it proposes to an
 * environment, who reviewed it, and where it stands. Stored as one item (change-request-store.ts); the proposed
 * values are sealed and leave only through their reveal.
 */

/** The statuses a request is stored with; `expired` is never stored: an open request past its expiry reads so. */
export const STORED_STATUSES = ['open', 'approved', 'rejected', 'merged', 'closed'] as const;
export const STATUSES = [...STORED_STATUSES, 'expired'] as const;
export type StoredStatus = (typeof STORED_STATUSES)[number];
export type ChangeRequestStatus = (typeof STATUSES)[number];

/** Open requests expire 30 days after they were opened (the TTL removes them some time later). */
export const EXPIRY_MS = 30 * 24 * 60 * 60 * 1000;

/** At most this many changes a request, so that a merge's items fit one transaction (see MAX_TRANSACTION_ITEMS). */
export const MAX_CHANGES = 20;

/** One proposed change: a value to set (sealed) or a delete, and the key's version when it was proposed. */
export interface StoredChange {
  key: string;
  action: 'set' | 'delete';
  /** The key's current version when the request was opened (0: the key had no value or did not exist). */
  baseVersion: number;
  sealed?: SealedValue;
  encoding?: 'base64';
}

export interface Review {
  reviewerSub: string;
  decision: 'approve' | 'reject';
  comment: string | null;
  createdAt: string;
}

/** Where a request proposes its changes: as much of its environment as the policy, the events and a write need. */
export interface RequestPlace {
  environmentId: string;
  projectId: string;
  projectSlug: string;
  envSlug: string;
}

export interface ChangeRequestRecord extends RequestPlace {
  id: string;
  title: string;
  description: string | null;
  status: StoredStatus;
  authorSub: string;
  changes: StoredChange[];
  reviews: Review[];
  createdAt: string;
  updatedAt: string;
  /** Counts the item's writes: every update holds only while the item is as it was read. */
  revision: number;
}

/** Its status as every read tells it: an open request past its expiry is `expired`. */
export function statusAt(record: Pick<ChangeRequestRecord, 'status' | 'createdAt'>, now: number): ChangeRequestStatus {
  return record.status === 'open' && Date.parse(record.createdAt) + EXPIRY_MS <= now ? 'expired' : record.status;
}

/** The item's TTL (epoch seconds): when an open request expires. Kept after it leaves `open`, as a record of it. */
export const expiryTtl = (createdAt: string) => Math.ceil((Date.parse(createdAt) + EXPIRY_MS) / 1000);

/** Another write changed the request between this one's read and its write: read again. */
export class ChangeRequestChangedError extends Error {}

/** A key that moved since it was proposed: its version then and now (`error.details` of a refused merge). */
export interface StaleKey {
  key: string;
  baseVersion: number;
  currentVersion: number;
}

/** A merge refused because keys moved since they were proposed: 409 CONFLICT naming each stale key, and only those. */
export class StaleChangesError extends ConflictError {
  override readonly details: readonly StaleKey[];
  constructor(stale: readonly StaleKey[]) {
    super(`Changed since proposed: ${stale.map((s) => s.key).join(', ')}; nothing was merged`);
    this.details = stale;
  }
}

/** Concurrent writers of one request (two reviews at once) read again this many times before CONFLICT. */
const UPDATE_ATTEMPTS = 5;

/** Runs `attempt` (read, decide, write) again while another write changed the request in between. */
export async function untilUpdated<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ChangeRequestChangedError)) throw error;
      if (tries >= UPDATE_ATTEMPTS) throw new ConflictError('The change request was changed by another request; retry');
    }
  }
}

/** A request as the API answers it: its status as of now, its changes without their values. */
export function answerOf(record: ChangeRequestRecord, now: number) {
  const changes = record.changes.map(({ key, action, baseVersion }) => ({ key, action, baseVersion }));
  return { ...record, status: statusAt(record, now), changes };
}

/** The audit metadata of a request's entries (and the data of its events): where it is, its title and keys. */
export const requestMetadata = (record: ChangeRequestRecord) => ({
  environmentId: record.environmentId,
  projectId: record.projectId,
  title: record.title,
  keys: record.changes.map((change) => change.key),
});
