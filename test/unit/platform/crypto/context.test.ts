import { describe, expect, it } from 'vitest';
import { canonicalContext } from '../../../../shared/platform/crypto/context.ts';

describe('canonicalContext', () => {
  it('gives the same bytes whatever the key order', () => {
    const ordered = { secretId: 'sec_1', version: '1', workspaceId: 'ws_1' };
    const shuffled = { workspaceId: 'ws_1', version: '1', secretId: 'sec_1' };

    const [a, b] = [canonicalContext(ordered), canonicalContext(shuffled)];

    expect(a.equals(b)).toBe(true);
    expect(a.toString('utf8')).toBe('[["secretId","sec_1"],["version","1"],["workspaceId","ws_1"]]');
  });

  it('keeps contexts apart that a naive join would merge', () => {
    const pairs: [Record<string, string>, Record<string, string>][] = [
      [{ a: 'b,c=d' }, { a: 'b', c: 'd' }],
      [{ a: 'b' }, { a: 'b', c: '' }],
      [{ 'a=b': 'c' }, { a: 'b=c' }],
    ];

    const clashes = pairs.filter(([x, y]) => canonicalContext(x).equals(canonicalContext(y)));

    expect(clashes).toEqual([]);
  });

  it('refuses a value that is not a string, since a number would change the bytes between writer and reader', () => {
    const context = { workspaceId: 'ws_1', version: 1 } as unknown as Record<string, string>;

    const serialising = () => canonicalContext(context);

    expect(serialising).toThrow('Encryption context value "version" must be a string');
  });
});
