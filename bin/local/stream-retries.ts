import type { DynamoDBRecord } from 'aws-lambda';

/** How failed batches are retried; the defaults match the deployed event source mapping. */
export interface RetryPolicy {
  /** Retries of a batch (or single record) before it is skipped (default 5, the CDK's `retryAttempts`). */
  maxRetries: number;
  /** Split a failing batch in two and retry each half, down to single records (default true). */
  bisectOnError: boolean;
  /** First retry delay, doubled each time up to 5 s (default 200 ms). */
  retryBaseMs: number;
}

export interface RetryHooks {
  /** Invokes the handler; answers the failed sequence numbers or 'all' (an invalid response), or throws. */
  invoke(chunk: DynamoDBRecord[]): Promise<Set<string> | 'all'>;
  /** Records that everything up to and including `record` is done. */
  commit(record: DynamoDBRecord): Promise<void>;
  onFailure(failure: { records: number; attempt: number; error: unknown }): void;
  onSkip(record: DynamoDBRecord): void;
  pause(ms: number): Promise<void>;
  stopped(): boolean;
}

type Outcome = { kind: 'ok' } | { kind: 'partial'; index: number } | { kind: 'error'; error: unknown };

async function attempt(chunk: DynamoDBRecord[], hooks: RetryHooks): Promise<Outcome> {
  try {
    const failed = await hooks.invoke(chunk);
    if (failed === 'all') return { kind: 'error', error: new Error('Invalid batch response: an itemIdentifier is not in the batch') };
    if (failed.size === 0) return { kind: 'ok' };
    return { kind: 'partial', index: chunk.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? '')) };
  } catch (error) {
    return { kind: 'error', error };
  }
}

/**
 * Lambda's stream retry rules, bounded. A thrown error (or an invalid response) splits a batch in two, each half
 * retried on its own down to single records; splitting uses up no retries. A batch reporting failed items commits the
 * records before the lowest failed one and retries from it. Past `maxRetries` the record that blocks the shard (the
 * whole batch when bisecting is off) is logged and skipped, as Lambda discards records after MaximumRetryAttempts.
 * Records stay in order throughout. Answers false when stopped before the end.
 */
export async function runWithRetries(records: DynamoDBRecord[], policy: RetryPolicy, hooks: RetryHooks): Promise<boolean> {
  const pending: DynamoDBRecord[][] = [records];
  while (pending.length > 0) {
    let chunk = pending.shift()!;
    let failures = 0;
    while (chunk.length > 0) {
      if (hooks.stopped()) return false;
      const outcome = await attempt(chunk, hooks);
      if (outcome.kind === 'ok') {
        await hooks.commit(chunk.at(-1)!);
        break;
      }
      if (outcome.kind === 'error' && policy.bisectOnError && chunk.length > 1) {
        pending.unshift(chunk.slice(Math.ceil(chunk.length / 2)));
        chunk = chunk.slice(0, Math.ceil(chunk.length / 2));
        continue;
      }
      if (outcome.kind === 'partial' && outcome.index > 0) {
        await hooks.commit(chunk[outcome.index - 1]!);
        chunk = chunk.slice(outcome.index);
        failures = 0;
      }
      failures += 1;
      hooks.onFailure({ records: chunk.length, attempt: failures, error: outcome.kind === 'error' ? outcome.error : undefined });
      if (failures <= policy.maxRetries) {
        await hooks.pause(Math.min(5_000, policy.retryBaseMs * 2 ** (failures - 1)));
        continue;
      }
      const skipped = outcome.kind === 'partial' || policy.bisectOnError ? chunk.slice(0, 1) : chunk;
      for (const record of skipped) hooks.onSkip(record);
      await hooks.commit(skipped.at(-1)!);
      chunk = chunk.slice(skipped.length);
      failures = 0;
    }
  }
  return true;
}
