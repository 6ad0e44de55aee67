import { createHash, randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { Clock } from '../clock.ts';
import { idempotentAnswerContext } from '../crypto/context.ts';
import type { Cipher } from '../crypto/envelope.ts';
import { ApiError, IdempotencyKeyInUseError, OutOfTimeError, IdempotencyKeyReusedError, ValidationError } from '../errors.ts';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyRef, StoredAnswer } from '../idempotency-scope.ts';
import type { ServiceMacs } from '../crypto/mac-key.ts';
import { buildAnswer } from './build-answer.ts';
import { errorResponse, replayResponse, successResponse } from './envelope.ts';
import { stateOf, type ApiEvent, type ApiResult } from './middleware.ts';

/** What the idempotency middleware needs: the records, a clock, and a cipher where answers carry one-time secrets. */
export interface IdempotencyDeps {
  /** The records (shared/platform/store/idempotency-store.ts). */
  store: {
    claimIdempotency(ref: IdempotencyRef, claim: { requestHash: string; lease: string; now: number; leaseMs: number }): Promise<boolean>;
    getIdempotency(ref: IdempotencyRef): Promise<IdempotencyRecord | undefined>;
    idempotencyCompletion(ref: IdempotencyRef, lease: string, answer: StoredAnswer): object;
    completeIdempotency(ref: IdempotencyRef, lease: string, answer: StoredAnswer): Promise<void>;
    releaseIdempotency(ref: IdempotencyRef, lease: string): Promise<void>;
  };
  clock: Clock;
  /** The service MACs (unsealed once per container): record ids and request digests are keyed with them. */
  macs: () => Promise<ServiceMacs>;
  cipher?: Cipher | undefined;
}

/** decisions.md: 1 to 255 printable ASCII characters. */
const KEY = /^[\x20-\x7E]{1,255}$/;

/** A request holds its key this long; past it (the function died) a retry may take the key over. */
const LEASE_MS = 60_000;

/**
 * The encryption context of a sealed answer: its workspace and which record. The record's keyed MAC names it; a
 * legacy record is named as it was when sealed (an unkeyed digest of the credential and the key).
 */
function answerContext(ref: IdempotencyRef) {
  const record = ref.legacy ? createHash('sha256').update(`${ref.credentialId}\n${ref.record}`).digest('hex') : ref.record;
  return idempotentAnswerContext(ref.workspaceId, record);
}

/** What makes two requests the same (decisions.md): method and route, path parameters, query, body and If-Match. */
function requestParts(event: ApiEvent, body: unknown): string {
  return JSON.stringify([
    event.routeKey,
    event.pathParameters ?? {},
    event.queryStringParameters ?? {},
    body ?? null,
    event.headers?.['if-match'] ?? null,
  ]);
}

/**
 * The record and request digests of a request, keyed with the service MAC key: a body holds secret values, so an
 * unkeyed hash of it in the table, its stream or a backup would let anyone confirm a guessed value offline.
 */
function keyedDigests(macs: ServiceMacs, principal: { workspaceId: string; credentialId: string }, key: string, parts: string) {
  const record = macs.mac('idempotencyRecord', `${principal.workspaceId}\n${principal.credentialId}\n${key}`).toString('base64url');
  return { ref: { ...principal, record } as IdempotencyRef, hash: macs.mac('idempotencyRequest', parts).toString('base64url') };
}

/**
 * A record of the form written before keyed digests that still governs this key: finished, or running on a lease
 * that has not run out, and not past its 24 hours. Its request hash is the unkeyed SHA-256 it was written with.
 */
async function liveLegacyRecord(deps: IdempotencyDeps, principal: { workspaceId: string; credentialId: string }, key: string, now: number) {
  const ref: IdempotencyRef = { ...principal, record: key, legacy: true };
  const record = await deps.store.getIdempotency(ref);
  if (!record || record.state === 'released' || (record.ttl !== undefined && record.ttl * 1000 <= now)) return undefined;
  if (record.state === 'running' && (record.leaseUntil ?? 0) < now) return undefined;
  return { ref, record };
}

/** The seconds until a running first request's lease ends: when a repeat may get its answer, or take the key over. */
function leaseSecondsLeft(record: IdempotencyRecord, now: number): number {
  // A repeat may have read its clock a moment before the first request claimed with its own: never past one lease.
  return Math.min(LEASE_MS / 1000, Math.max(1, Math.ceil(((record.leaseUntil ?? now) - now) / 1000)));
}

/**
 * `Idempotency-Key` on the routes that change state (decisions.md). The first request claims the key and runs; its
 * answer (2xx or 4xx) is recorded, in the change's own transaction where the change is one; a repeat with the same
 * request answers the recorded status and body with `Idempotent-Replayed: true` and changes nothing; a different
 * request with the key is 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first runs is 409 CONFLICT with
 * `Retry-After` the seconds left of its lease. A 5xx gives the key back, so the client may retry with it, except
 * running out of time: the handler may still commit, so the key stays held. Other routes ignore the header (the
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
      const principal = { workspaceId: state.principal!.workspaceId, credentialId: state.principal!.credentialId };
      const parts = requestParts(request.event, state.body);
      const { ref, hash } = keyedDigests(await deps.macs(), principal, key, parts);
      const replay = async (found: IdempotencyRef, record: IdempotencyRecord, expected: string, now: number) => {
        if (record.requestHash !== expected)
          throw new IdempotencyKeyReusedError('Idempotency-Key: was already used with a different request');
        if (record.state !== 'done' || !record.answer) throw new IdempotencyKeyInUseError(leaseSecondsLeft(record, now));
        state.replay = replayResponse(state.requestId, record.answer.status, await open(record.answer, found));
      };
      const lease = randomUUID();
      for (let attempt = 0; attempt < 2; attempt++) {
        const now = deps.clock.now();
        // A record of the old form (written before the upgrade) is looked for beside the claim, not after it.
        const [claimed, legacy] = await Promise.all([
          deps.store.claimIdempotency(ref, { requestHash: hash, lease, now, leaseMs: LEASE_MS }),
          attempt === 0 ? liveLegacyRecord(deps, principal, key, now) : undefined,
        ]);
        if (legacy) {
          if (claimed) await deps.store.releaseIdempotency(ref, lease);
          return replay(legacy.ref, legacy.record, createHash('sha256').update(parts).digest('hex'), now);
        }
        if (claimed) {
          const claim: IdempotencyClaim = {
            ref,
            lease,
            scope: { committed: false, closed: false, completion: async () => ({ item: {}, body: '' }) },
          };
          claim.scope.completion = async (data) => {
            const body = successResponse(state.requestId, route.status ?? 200, buildAnswer(route.response, data)).body as string;
            return {
              item: deps.store.idempotencyCompletion(
                ref,
                lease,
                await seal(claim, route.status ?? 200, body, route.oneTimeSecret === true),
              ),
              body,
            };
          };
          state.idempotency = claim;
          return;
        }
        const record = await deps.store.getIdempotency(ref);
        // Given back (or expired) between our claim and our read: claim again.
        if (!record || record.state === 'released') continue;
        return replay(ref, record, hash, now);
      }
      throw new IdempotencyKeyInUseError(1);
    },

    after: async (request) => {
      const claim = stateOf(request).idempotency;
      if (!claim) return;
      claim.scope.closed = true;
      if (claim.scope.committed) return;
      // No transaction carried the answer (the change needed none): record it now.
      const response = request.response!;
      await deps.store.completeIdempotency(
        claim.ref,
        claim.lease,
        await seal(claim, response.statusCode ?? 200, response.body as string, stateOf(request).route!.oneTimeSecret === true),
      );
    },

    onError: async (request) => {
      const state = stateOf(request);
      const claim = state.idempotency;
      if (!claim) return;
      const error = request.error;
      // Answered early, out of time, while the handler still runs: it may yet commit, recording its answer in its
      // change's transaction (which holds only while this lease does). Giving the key back now would let a retry
      // make the change a second time, so a retry gets 409 with Retry-After until the answer is recorded or the
      // lease runs out.
      if (error instanceof OutOfTimeError) return;
      claim.scope.closed = true;
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
