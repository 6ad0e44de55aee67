import { describe, expect, it } from 'vitest';
import { composeStores } from '../../../../shared/platform/store/compose.ts';

describe('composeStores', () => {
  const heads = { getHead: () => 'head', putHead: (value: string) => value };
  const versions = { listVersions: () => ['v1'] };

  it('answers every method of every part', () => {
    const store = composeStores(heads, versions);
    expect([store.getHead(), store.putHead('x'), store.listVersions()]).toEqual(['head', 'x', ['v1']]);
  });

  it('refuses a method two parts define: a type error naming it', () => {
    const again = { getHead: () => 'other' };
    // @ts-expect-error getHead is defined twice (tsc, which npm test runs, fails on this file if the clash were accepted)
    const clash = composeStores(heads, versions, again);
    // A cast past the type check would let the last part win: what the type error is there to prevent.
    expect(clash.getHead()).toBe('other');
  });
});
