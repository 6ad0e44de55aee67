import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../../shared/platform/errors.ts';
import { untilHeadWritten } from '../../../shared/secrets/head-retries.ts';
import { VersionConflictError } from '../../../shared/secrets/secret-record.ts';

const FAST = { attempts: 3, capMs: 1, stepMs: 1 };

describe('untilHeadWritten', () => {
  it('reads and writes again after a lost race, and answers what the winning attempt answers', async () => {
    // Prepare
    const tries: number[] = [];
    // Act
    const answer = await untilHeadWritten('sec_1', FAST, async (n) => {
      tries.push(n);
      if (n < 2) throw new VersionConflictError();
      return 'written';
    });
    // Assess
    expect({ answer, tries }).toEqual({ answer: 'written', tries: [0, 1, 2] });
  });

  it('passes any other error through at once', async () => {
    // Prepare
    let tries = 0;
    // Act
    const outcome = untilHeadWritten('sec_1', FAST, async () => {
      tries++;
      throw new TypeError('not a race');
    });
    // Assess
    await expect(outcome).rejects.toThrow(TypeError);
    expect(tries).toBe(1);
  });

  it('is CONFLICT, naming the secret, after as many lost races as it may take', async () => {
    // Prepare
    let tries = 0;
    // Act
    const outcome = untilHeadWritten('sec_1', FAST, async () => {
      tries++;
      throw new VersionConflictError();
    });
    // Assess
    await expect(outcome).rejects.toThrow(ConflictError);
    await expect(outcome).rejects.toThrow('secret sec_1: too many concurrent changes; retry');
    expect(tries).toBe(3);
  });
});
