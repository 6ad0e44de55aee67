import { afterEach, describe, expect, it, vi } from 'vitest';
import { idTime, isId, newRequestId } from '../../../shared/platform/ids.ts';

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

  it('take their 80 random bits from the CSPRNG, not Math.random', () => {
    // Prepare: a Math.random that always answers 0 would make every id of a millisecond the same
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const csprng = vi.spyOn(crypto, 'getRandomValues');
    // Act
    const ids = Array.from({ length: 50 }, () => newRequestId(1_000));
    // Assess
    expect(new Set(ids).size).toBe(50);
    expect(csprng).toHaveBeenCalledTimes(50);
    expect(Math.random).not.toHaveBeenCalled();
  });

  it('spread their random part over the whole Crockford alphabet', () => {
    // Act: 16 characters of each of 400 ids
    const characters = new Set(Array.from({ length: 400 }, () => newRequestId(1_000).slice(-16)).join(''));
    // Assess: 6,400 draws of 32 equally likely characters miss one with probability about 32 * (31/32)^6400
    expect(characters.size).toBe(32);
  });
});
