import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord, IdempotencyRef, StoredAnswer } from '../idempotency-scope.ts';
import { sendConditional, type TransactItem } from './conditional.ts';
import { ENTITY, keys } from './keys.ts';
import { getItem } from './reads.ts';
import { fromStored, toStored } from './sealed.ts';
import type { Db } from './send.ts';

/** The item of a ref: keyed, or the legacy form a ref names only to read it. */
function recordKey(ref: IdempotencyRef) {
  return ref.legacy
    ? keys.legacyIdempotency(ref.workspaceId, ref.credentialId, ref.record)
    : keys.idempotency(ref.workspaceId, ref.credentialId, ref.record);
}

/** Records are kept this long (decisions.md: 24 hours), then DynamoDB TTL removes them. */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** The update that records the answer, on the lease of the request that holds the record. */
function completeInput(db: Db, ref: IdempotencyRef, lease: string, answer: StoredAnswer) {
  const stored = 'sealed' in answer ? { status: answer.status, sealed: toStored(answer.sealed) } : answer;
  return {
    TableName: db.tableName,
    Key: recordKey(ref),
    UpdateExpression: 'SET #state = :done, answer = :answer REMOVE leaseUntil',
    ConditionExpression: 'lease = :lease',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':done': 'done', ':answer': stored, ':lease': lease },
  };
}

/** Idempotency records: claimed before a request runs, completed with its answer, released when it failed. */
export function makeIdempotencyStore(db: Db) {
  return {
    /**
     * Claims the key for a request: a new record, or one whose holder's lease ran out (it crashed). Answers false
     * when another request holds it or finished it.
     */
    async claimIdempotency(
      ref: IdempotencyRef,
      claim: { requestHash: string; lease: string; now: number; leaseMs: number },
    ): Promise<boolean> {
      const put = await sendConditional(
        db,
        new PutCommand({
          TableName: db.tableName,
          Item: {
            ...recordKey(ref),
            type: ENTITY.idempotency,
            requestHash: claim.requestHash,
            state: 'running',
            lease: claim.lease,
            leaseUntil: claim.now + claim.leaseMs,
            ttl: Math.floor(claim.now / 1000) + IDEMPOTENCY_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(PK) OR #state = :released OR (#state = :running AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':running': 'running', ':released': 'released', ':now': claim.now },
        }),
      );
      return put !== undefined;
    },

    async getIdempotency(ref: IdempotencyRef): Promise<IdempotencyRecord | undefined> {
      const item = await getItem(db, recordKey(ref));
      if (!item) return undefined;
      const stored = item.answer as { status: number; body?: string; sealed?: Record<string, unknown> } | undefined;
      const answer =
        stored &&
        (stored.sealed ? { status: stored.status, sealed: fromStored(stored.sealed) } : { status: stored.status, body: stored.body! });
      return {
        requestHash: item.requestHash as string,
        state: item.state as IdempotencyRecord['state'],
        answer,
        leaseUntil: item.leaseUntil as number | undefined,
        ttl: item.ttl as number | undefined,
      };
    },

    /** The transaction item that records the answer together with the change it answers. */
    idempotencyCompletion(ref: IdempotencyRef, lease: string, answer: StoredAnswer): TransactItem {
      return { Update: completeInput(db, ref, lease, answer) };
    },

    /** Records the answer on its own (a refusal, or a change that needed no transaction). */
    async completeIdempotency(ref: IdempotencyRef, lease: string, answer: StoredAnswer): Promise<void> {
      await sendConditional(db, new UpdateCommand(completeInput(db, ref, lease, answer)));
    },

    /**
     * Gives the key back after a failure that changed nothing the client can see (5xx): it may retry with it. An
     * update, not a delete, so the API functions need no DeleteItem for it.
     */
    async releaseIdempotency(ref: IdempotencyRef, lease: string): Promise<void> {
      await sendConditional(
        db,
        new UpdateCommand({
          TableName: db.tableName,
          Key: recordKey(ref),
          UpdateExpression: 'SET #state = :released REMOVE lease, leaseUntil',
          ConditionExpression: 'lease = :lease',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':lease': lease, ':released': 'released' },
        }),
      );
    },
  };
}
