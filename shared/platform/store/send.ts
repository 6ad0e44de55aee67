import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ServiceUnavailableError } from '../errors.ts';

/** The table and the client that reaches it. */
export interface Db {
  doc: DynamoDBDocumentClient;
  tableName: string;
}

/** A transaction cancelled by a concurrent one or by throttling, not by a condition: retrying may succeed. */
export class TransactionContentionError extends ServiceUnavailableError {}

const CONTENTION = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

const RETRYABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionInProgressException',
  'TimeoutError',
]);

/**
 * Maps SDK failures that a client can do nothing about but wait to SERVICE_UNAVAILABLE; everything else is
 * rethrown for the caller (condition failures) or the error middleware (a 500 that never shows internals).
 */
export function translateError(error: unknown): never {
  const name = (error as { name?: string } | null)?.name ?? '';
  const code = (error as { code?: string } | null)?.code ?? '';
  if (name === 'TransactionCanceledException') {
    const reasons = ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code);
    if (!reasons.includes('ConditionalCheckFailed') && reasons.some((r) => r && CONTENTION.has(r))) throw new TransactionContentionError();
    throw error;
  }
  if (RETRYABLE.has(name) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code)) {
    throw new ServiceUnavailableError();
  }
  throw error;
}

/** Sends through the document client, translating retryable failures. */
export async function send<T>(db: Db, command: object): Promise<T> {
  try {
    return (await db.doc.send(command as never)) as T;
  } catch (error) {
    return translateError(error);
  }
}
