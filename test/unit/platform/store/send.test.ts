import { describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../../../shared/platform/errors.ts';
import { conditionFailedAt } from '../../../../shared/platform/store/conditional.ts';
import { TransactionContentionError, translateError } from '../../../../shared/platform/store/send.ts';

const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('translateError', () => {
  it('maps throttling and network failures to SERVICE_UNAVAILABLE', () => {
    for (const error of [
      Object.assign(new Error('x'), { name: 'ThrottlingException' }),
      Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    ]) {
      expect(() => translateError(error)).toThrow(ServiceUnavailableError);
    }
  });

  it('turns a transaction cancelled by contention into a retryable error, but leaves condition failures to the caller', () => {
    expect(() => translateError(cancelled('None', 'TransactionConflict'))).toThrow(TransactionContentionError);
    const conditional = cancelled('None', 'ConditionalCheckFailed');
    expect(() => translateError(conditional)).toThrow(conditional);
    expect(conditionFailedAt(conditional, 1)).toBe(true);
    expect(conditionFailedAt(conditional, 0)).toBe(false);
  });

  it('rethrows anything else untouched', () => {
    const error = Object.assign(new Error('bad'), { name: 'ValidationException' });
    expect(() => translateError(error)).toThrow(error);
  });
});
