import { afterEach, describe, expect, it, vi } from 'vitest';
import { idTime, isId, newId, newRequestId } from '../../../shared/platform/ids.ts';

describe('request ids', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('are req_ ULIDs of the given time', () => {
    // Act
    const id = newRequestId(Date.parse('2026-06-01T00:00:00.000Z'));
    // Assess
    expect(isId('request', id)).toBe(true);
    expect(idTime(id)).toBe(Date.parse('2026-06-01T00:00:00.000Z'));
  });

  it('take their 80 random bits from the CSPRNG, 1 KB at a time, not Math.random', () => {
    // Prepare: a Math.random that always answers 0 would make every id of a millisecond the same
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const csprng = vi.spyOn(crypto, 'getRandomValues');
    // Act: 200 ids take 3,200 random bytes
    const ids = Array.from({ length: 200 }, () => newRequestId(1_000));
    // Assess: each draw fills 1,024 bytes, each byte used once
    expect(new Set(ids).size).toBe(200);
    expect(csprng.mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(csprng.mock.calls.length).toBeLessThanOrEqual(4);
    for (const [array] of csprng.mock.calls) expect((array as Uint8Array).length).toBe(1024);
    expect(Math.random).not.toHaveBeenCalled();
  });

  it('are the bytes the CSPRNG gave: an all-zero draw gives an all-zero random part', () => {
    // Prepare: a CSPRNG that answers zeros, from the next draw on (the bytes left from earlier draws are used first)
    const csprng = vi.spyOn(crypto, 'getRandomValues').mockImplementation((array) => (array as Uint8Array).fill(0) as never);
    for (let i = 0; i < 64 && csprng.mock.calls.length === 0; i++) newRequestId(1_000);
    // Act
    const id = newRequestId(1_000);
    // Assess
    expect(id.slice(-16)).toBe('0'.repeat(16));
  });

  it('spread their random part over the whole Crockford alphabet', () => {
    // Act: 16 characters of each of 400 ids
    const characters = new Set(Array.from({ length: 400 }, () => newRequestId(1_000).slice(-16)).join(''));
    // Assess: 6,400 draws of 32 equally likely characters miss one with probability about 32 * (31/32)^6400
    expect(characters.size).toBe(32);
  });
});

describe('ids', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('take their random part from the CSPRNG through the same pool, not Math.random', () => {
    // Prepare
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const csprng = vi.spyOn(crypto, 'getRandomValues');
    // Act: each id in a millisecond of its own takes 16 fresh random characters
    const ids = Array.from({ length: 200 }, (_, i) => newId('secret', 1_000 + i));
    // Assess
    expect(new Set(ids.map((id) => id.slice(-16))).size).toBe(200);
    expect(ids.every((id) => isId('secret', id))).toBe(true);
    expect(csprng.mock.calls.length).toBeGreaterThanOrEqual(3);
    for (const [array] of csprng.mock.calls) expect((array as Uint8Array).length).toBe(1024);
    expect(Math.random).not.toHaveBeenCalled();
  });
});
