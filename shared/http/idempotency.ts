import { createHash, randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { Clock } from '../clock.ts';
import { idempotentAnswerContext } from '../crypto/context.ts';
import type { Cipher } from '../crypto/envelope.ts';
import { ApiError, IdempotencyKeyInUseError, IdempotencyKeyReusedError, ValidationError } from '../errors.ts';
import type { IdempotencyRecord, IdempotencyRef, IdempotencyScope, StoredAnswer } from '../idempotency-scope.ts';
import { buildAnswer } from './answer.ts';
import { errorResponse, replayResponse, successResponse } from './envelope.ts';
import { stateOf, type ApiEvent, type ApiResult } from './middleware.ts';

/** What the idempotency middleware needs: the records, a clock, and a cipher where answers carry one-time secrets. */
export interface IdempotencyDeps {
  /** The records (shared/store/idempotency.ts). */
  store: {
    claimIdempotency(ref: IdempotencyRef, claim: { requestHash: string; lease: string; now: number; leaseMs: number }): Promise<boolean>;
    getIdempotency(ref: IdempotencyRef): Promise<IdempotencyRecord | undefined>;
    idempotencyCompletion(ref: IdempotencyRef, lease: string, answer: StoredAnswer): object;
    completeIdempotency(ref: IdempotencyRef, lease: string, answer: StoredAnswer): Promise<void>;
    releaseIdempotency(ref: IdempotencyRef, lease: string): Promise<void>;
  };
  clock: Clock;
  cipher?: Cipher | undefined;
}

/** decisions.md: 1 to 255 printable ASCII characters. */
const KEY = /^[\x20-\x7E]{1,255}$/;

/** A request holds its key this long; past it (the function died) a retry may take the key over. */
const LEASE_MS = 60_000;

/** The request's claim, kept on the request state. */
export interface IdempotencyClaim {
  ref: IdempotencyRef;
  lease: string;
  scope: IdempotencyScope;
}

/** The encryption context of a sealed answer: its workspace and a digest of which record (credential and key). */
function answerContext(ref: IdempotencyRef) {
  return idempotentAnswerContext(ref.workspaceId, createHash('sha256').update(`${ref.credentialId}\n${ref.key}`).digest('hex'));
}

/** What makes two requests the same (decisions.md): method and route, path parameters, query, body and If-Match. */
function requestHash(event: ApiEvent, body: unknown): string {
  const parts = [event.routeKey, event.pathParameters ?? {}, event.queryStringParameters ?? {}, body ?? null, event.headers?.['if-match'] ?? null];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/**
 * `Idempotency-Key` on the routes that change state (decisions.md). The first request claims the key and runs; its
 * answer (2xx or 4xx) is recorded, in the change's own transaction where the change is one; a repeat with the same
 * request answers the recorded status and body with `Idempotent-Replayed: true` and changes nothing; a different
 * request with the key is 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first runs is 409 CONFLICT with
 * `Retry-After: 1`. A 5xx gives the key back, so the client may retry with it. Other routes ignore the header (the
 * reveal routes refuse it earlier).
 */
export function idempotency(deps: IdempotencyDeps): MiddlewareObj<ApiEvent, ApiResult> {
  const seal = async (claim: IdempotencyClaim, status: number, body: string, secret: boolean): Promise<StoredAnswer> => {
    if (!secret) return { status, body };
    if (!deps.cipher) throw new Error('Invalid configuration: a route with one-time secrets needs a cipher for idempotent answers');
    return { status, sealed: await deps.cipher.encrypt(body, answerContext(claim.ref)) };
  };
  const open = async (answer: StoredAnswer, ref: IdempotencyRef): Promise<string> =>
    'body' in answer ? answer.body : deps.cipher!.decrypt(answer.sealed, answerContext(ref));

  return {
    before: async (request) => {
      const state = stateOf(request);
      const route = state.route!;
      const key = request.event.headers?.['idempotency-key'];
      if (key === undefined || !route.idempotent) return;
      if (!KEY.test(key)) throw new ValidationError('Idempotency-Key: must be 1 to 255 printable ASCII characters');
      const ref = { workspaceId: state.principal!.workspaceId, credentialId: state.principal!.credentialId, key };
      const hash = requestHash(request.event, state.body);
      const lease = randomUUID();
      for (let attempt = 0; attempt < 2; attempt++) {
        if (await deps.store.claimIdempotency(ref, { requestHash: hash, lease, now: deps.clock.now(), leaseMs: LEASE_MS })) {
          const claim: IdempotencyClaim = { ref, lease, scope: { committed: false, closed: false, completion: async () => ({ item: {}, body: '' }) } };
          claim.scope.completion = async (data) => {
            const body = successResponse(state.requestId, route.status ?? 200, buildAnswer(route.response, data)).body as string;
            return { item: deps.store.idempotencyCompletion(ref, lease, await seal(claim, route.status ?? 200, body, route.oneTimeSecret === true)), body };
          };
          state.idempotency = claim;
          return;
        }
        const record = await deps.store.getIdempotency(ref);
        // Given back (or expired) between our claim and our read: claim again.
        if (!record || record.state === 'released') continue;
        if (record.requestHash !== hash) throw new IdempotencyKeyReusedError('Idempotency-Key: was already used with a different request');
        if (record.state !== 'done' || !record.answer) throw new IdempotencyKeyInUseError();
        const body = await open(record.answer, ref);
        state.replay = replayResponse(state.requestId, record.answer.status, body);
        return;
      }
      throw new IdempotencyKeyInUseError();
    },

    after: async (request) => {
      const claim = stateOf(request).idempotency;
      if (!claim) return;
      claim.scope.closed = true;
      if (claim.scope.committed) return;
      // No transaction carried the answer (the change needed none): record it now.
      const response = request.response!;
      await deps.store.completeIdempotency(claim.ref, claim.lease, await seal(claim, response.statusCode ?? 200, response.body as string, stateOf(request).route!.oneTimeSecret === true));
    },

    onError: async (request) => {
      const state = stateOf(request);
      const claim = state.idempotency;
      if (!claim) return;
      claim.scope.closed = true;
      const error = request.error;
      if (claim.scope.committed || !(error instanceof ApiError) || error.status >= 500) {
        // Nothing a client saw was recorded: give the key back (a committed change with a failed answer keeps it).
        if (!claim.scope.committed) await deps.store.releaseIdempotency(claim.ref, claim.lease);
        return;
      }
      const response = errorResponse(state.requestId, error);
      await deps.store.completeIdempotency(claim.ref, claim.lease, { status: response.statusCode!, body: response.body as string });
      request.response = response;
    },
  };
}
