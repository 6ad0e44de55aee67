import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeCursorCodec } from '../../../shared/platform/store/cursor.ts';

describe('cursor codec', () => {
  const codec = makeCursorCodec(randomBytes(32));
  const key = { PK: 'WS#ws_1', SK: 'PROJ#proj_1' };

  it('round-trips a start key within its scope', () => {
    expect(codec.decode('projects:ws_1', codec.encode('projects:ws_1', key))).toEqual(key);
  });

  it('refuses a cursor of another scope, another signing key, or with any byte changed', () => {
    const cursor = codec.encode('projects:ws_1', key);
    expect(() => codec.decode('projects:ws_2', cursor)).toThrow('cursor: is not a valid cursor for this list');
    expect(() => makeCursorCodec(randomBytes(32)).decode('projects:ws_1', cursor)).toThrow(/cursor/);
    for (let i = 0; i < cursor.length; i++) {
      if (cursor[i] === '.') continue;
      const altered = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      expect(() => codec.decode('projects:ws_1', altered)).toThrow(/cursor/);
    }
    expect(() => codec.decode('projects:ws_1', 'a.b.c')).toThrow(/cursor/);
    // The last character of a 16-byte tag carries four padding bits: flipping one decodes to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(cursor.at(-1)!);
    const samebytes = cursor.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(samebytes.split('.')[1]!, 'base64url')).toEqual(Buffer.from(cursor.split('.')[1]!, 'base64url'));
    expect(() => codec.decode('projects:ws_1', samebytes)).toThrow(/cursor/);
    expect(() => codec.decode('projects:ws_1', 'nodot')).toThrow(/cursor/);
  });

  it('tells nothing of the position it holds (a filtered page may stop after an item its caller may not see)', () => {
    const hidden = { PK: 'WS#ws_1', SK: 'EKEY#env_1#PROD_DATABASE_PASSWORD' };
    const cursor = codec.encode('secrets:ws_1:env_1', hidden);
    const bytes = Buffer.concat(cursor.split('.').map((part) => Buffer.from(part, 'base64url')));
    expect(bytes.toString('latin1')).not.toContain('PROD_DATABASE');
    expect(cursor).not.toContain('PROD_DATABASE');
    expect(codec.decode('secrets:ws_1:env_1', cursor)).toEqual(hidden);
  });
});
