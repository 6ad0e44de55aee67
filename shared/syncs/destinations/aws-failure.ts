import { DestinationError } from './destination.ts';

/**
 * An AWS SDK failure as a sync's `lastError`: the operation, AWS's error code and HTTP status, and AWS's message
 * unless it quotes a value being pushed (some validation messages repeat their input). Credentials never appear:
 * the SDK does not put them in its errors, and nothing here adds them.
 */
export function awsFailure(operation: string, error: unknown, values: readonly string[] = []): DestinationError {
  if (error instanceof DestinationError) return error;
  const failure = error as { name?: unknown; message?: unknown; code?: unknown; $metadata?: { httpStatusCode?: number } };
  if (failure.code === 'ESSRFBLOCKED') return new DestinationError(`${operation}: ${String(failure.message)}`);
  const code = typeof failure.name === 'string' ? failure.name : 'Error';
  const status = failure.$metadata?.httpStatusCode;
  const raw = typeof failure.message === 'string' ? failure.message.slice(0, 300) : '';
  const quotesValue = values.some((value) => value !== '' && raw.includes(value));
  const message = raw === '' || quotesValue ? '' : `: ${raw}`;
  return new DestinationError(`${operation}: ${code}${status === undefined ? '' : ` (${status})`}${message}`);
}

/** The AWS error code of an SDK failure (its `name`), to tell "not found" from a real failure. */
export const awsErrorCode = (error: unknown): string | undefined => {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : undefined;
};
