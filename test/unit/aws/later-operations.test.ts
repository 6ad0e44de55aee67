import { describe, expect, it } from 'vitest';
import { LATER_OPERATIONS } from '../../../functions/aws/later-operations.ts';
import { moreOperations } from '../../../functions/aws/more-operations.ts';
import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import { fakeCipher, fakeClock } from '../support/fakes.ts';

describe('the AWS API operations loaded on first use', () => {
  it('are exactly the ones the handler names (a name missing from either would be UnknownOperationException or a 500)', () => {
    const { operations } = moreOperations({
      config: { aws: LOCAL_PLACE, keyNames: { keyArn: undefined, alias: undefined }, revealsPerMinute: 120 } as never,
      db: { tableName: 't', doc: {} } as never,
      pager: {} as never,
      clock: fakeClock(),
      cipher: fakeCipher(),
      limiter: {} as never,
    });
    expect(Object.keys(operations).sort()).toEqual([...LATER_OPERATIONS].sort());
  });
});
