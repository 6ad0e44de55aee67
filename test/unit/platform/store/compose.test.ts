import { describe, expect, it } from 'vitest';
import { composeStores } from '../../../../shared/platform/store/compose.ts';

describe('composeStores', () => {
  const heads = { getHead: () => 'head', putHead: (value: string) => value };
  const versions = { listVersions: () => ['v1'] };

  it('answers every method of every part', () => {
    const store = composeStores(heads, versions);
    expect([store.getHead(), store.putHead('x'), store.listVersions()]).toEqual(['head', 'x', ['v1']]);
  });

  it('refuses a method two parts define: a type error naming it, and a throw at composition', () => {
    const again = { getHead: () => 'other' };
    // @ts-expect-error getHead is defined twice (tsc fails on this file if the clash were accepted)
    expect(() => composeStores(heads, versions, again)).toThrow('store method getHead is defined by two stores');
  });
});
