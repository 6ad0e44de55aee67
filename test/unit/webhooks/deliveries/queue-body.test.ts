import { describe, expect, it } from 'vitest';
import { counts, exactly, readBody } from '../../../../shared/webhooks/deliveries/queue-body.ts';

describe("reading a queue message's body", () => {
  it('parses a JSON string of at most 1 KB, and answers undefined for anything else', () => {
    expect(readBody('{"a":1}')).toEqual({ a: 1 });
    expect(readBody(`"${'x'.repeat(1022)}"`)).toBe('x'.repeat(1022));
    expect(readBody(`"${'x'.repeat(1023)}"`)).toBeUndefined();
    expect(readBody('{not json')).toBeUndefined();
    expect(readBody(42 as unknown as string)).toBeUndefined();
  });

  it('takes a plain object with exactly the keys named, own keys only', () => {
    expect(exactly({ a: 1, b: 2 }, ['a', 'b'])).toEqual({ a: 1, b: 2 });
    expect(exactly({ a: 1 }, ['a', 'b'])).toBeUndefined();
    expect(exactly({ a: 1, b: 2, c: 3 }, ['a', 'b'])).toBeUndefined();
    expect(exactly({ a: 1, c: 2 }, ['a', 'b'])).toBeUndefined();
    expect(exactly(Object.create({ b: 2 }, { a: { value: 1, enumerable: true } }), ['a', 'b'])).toBeUndefined();
    expect(exactly([1, 2], ['0', '1'])).toBeUndefined();
    expect(exactly(null, [])).toBeUndefined();
  });

  it('takes a workspace id with a whole number from 0 on', () => {
    const ws = 'ws_01JX0000000000000000000000';
    expect(counts(ws, 0)).toBe(true);
    expect(counts(ws, Number.MAX_SAFE_INTEGER)).toBe(true);
    for (const n of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, '1', Number.NaN]) expect(counts(ws, n)).toBe(false);
    expect(counts('ws_x', 1)).toBe(false);
    expect(counts('whd_01JX0000000000000000000000', 1)).toBe(false);
  });
});
