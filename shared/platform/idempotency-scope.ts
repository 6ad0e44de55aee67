import { storageOnFirstRun } from './async-storage.ts';
import type { SealedValue } from './crypto/envelope.ts';

/**
 * The idempotency record of the request being handled, if it carries an `Idempotency-Key`: the HTTP layer runs the
 * route handler in it, a service announces the answer it is about to give just before its change commits, and the
 * data layer's `transact()` then completes the record in the change's own transaction (so a change never exists
 * without its record, nor a record without its change). A leaf module beside http/ and store/, not in either, so
 * that services, the HTTP layer and the data layer all reach it and the data layer never imports the HTTP layer.
 */
export interface IdempotencyScope {
  /** The answer's `data`, set by the service before its transaction. */
  answer?: unknown;
  /** The transaction item that records `data` as the answer (sealed when it carries a one-time secret), and that body. */
  completion: (data: unknown) => Promise<{ item: object; body: string }>;
  /** Set once a transaction carrying the completion committed. */
  committed: boolean;
  /**
   * The answer's body as recorded, set only when its transaction committed: the first answer and every replay are
   * then the same bytes. A transaction that failed leaves it unset, and the service's own answer is given.
   */
  recordedBody?: string;
  /** Set when the request ended: nothing may use the scope afterwards. */
  closed: boolean;
}

const scopes = storageOnFirstRun<IdempotencyScope>();

/** Runs a request's handler inside its scope. */
export function runInIdempotencyScope<T>(scope: IdempotencyScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work);
}

/** The open scope of this request, if any. */
export function idempotencyScope(): IdempotencyScope | undefined {
  const scope = scopes.getStore();
  return scope && !scope.closed ? scope : undefined;
}

/** Called by a service with the `data` it will answer, just before the transaction that makes its change; answers it. */
export function announceAnswer<T>(data: T): T {
  const scope = idempotencyScope();
  if (scope && !scope.committed) scope.answer = data;
  return data;
}

/**
 * Which record: the credential in its workspace, and `record`, the keyed MAC of the key it sent (the key itself is
 * never stored). A `legacy` ref names a record of the form written before keyed digests, stored under the key
 * itself: read only, honoured until it expires.
 */
export interface IdempotencyRef {
  workspaceId: string;
  credentialId: string;
  record: string;
  legacy?: true;
}

/** A stored answer: in the clear, or sealed when it carries a one-time secret (a token, a signing secret). */
export type StoredAnswer = { status: number; body: string } | { status: number; sealed: SealedValue };

/** A record as read back. */
export interface IdempotencyRecord {
  /** The keyed digest of the request (an unkeyed SHA-256 in a legacy record). */
  requestHash: string;
  state: 'running' | 'done' | 'released';
  answer: StoredAnswer | undefined;
  /** Until when (epoch ms) a running request holds the key. */
  leaseUntil: number | undefined;
  /** When the record expires (epoch seconds, DynamoDB TTL; the item may linger past it). */
  ttl: number | undefined;
}

/** The request's claim, kept on the request state. */
export interface IdempotencyClaim {
  ref: IdempotencyRef;
  lease: string;
  scope: IdempotencyScope;
}
