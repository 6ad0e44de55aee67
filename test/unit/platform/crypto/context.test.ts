import { describe, expect, it } from 'vitest';
import {
  canonicalContext,
  SECRET_VALUE_CONTEXT,
  secretContext,
  SIGNING_SECRET_CONTEXT,
  signingSecretContext,
} from '../../../../shared/platform/crypto/context.ts';

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

describe('encryption contexts', () => {
  it('bind a secret value to its workspace, secret and version, with exactly the keys the IAM grant names', () => {
    // Act
    const context = secretContext('ws_1', 'sec_1', 3);

    // Assess
    expect(context).toEqual({ workspaceId: 'ws_1', secretId: 'sec_1', version: '3' });
    expect(Object.keys(context).sort()).toEqual([...SECRET_VALUE_CONTEXT].sort());
  });

  it('bind a signing secret to its workspace and endpoint, with exactly the keys the IAM grant names', () => {
    // Act
    const context = signingSecretContext('ws_1', 'we_1');

    // Assess
    expect(context).toEqual({ workspaceId: 'ws_1', endpointId: 'we_1' });
    expect(Object.keys(context).sort()).toEqual([...SIGNING_SECRET_CONTEXT].sort());
  });
});
