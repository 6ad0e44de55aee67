import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../../shared/platform/errors.ts';
import {
  checkLabelRelease,
  checkStageOn,
  checkStages,
  labelsAfterMove,
  labelsAfterWrite,
  labelsOf,
  labelsWithout,
  latestVersionOf,
  StageRuleError,
  stagesOf,
} from '../../../shared/secrets/secret-labels.ts';

/** Each rule of decisions.md's "Staging labels", one test each, over the pure label functions. */

const refused = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(StageRuleError);
    return (error as Error).message;
  }
  throw new Error('expected a StageRuleError');
};

describe('staging labels', () => {
  it('a head written before labels has AWSCURRENT on its current version and AWSPREVIOUS on the one before', () => {
    expect(labelsOf({ currentVersion: 3 })).toEqual({ AWSCURRENT: 3, AWSPREVIOUS: 2 });
    expect(labelsOf({ currentVersion: 1 })).toEqual({ AWSCURRENT: 1 });
    // Stored labels, even none, are the labels: AWSPREVIOUS taken off does not come back.
    expect(labelsOf({ currentVersion: 3, labels: {} })).toEqual({ AWSCURRENT: 3 });
  });

  it('a write without stages makes the new version AWSCURRENT and moves AWSPREVIOUS to the version that had it', () => {
    const after = labelsAfterWrite({ currentVersion: 2, labels: { AWSPREVIOUS: 1 } }, 3);
    expect(after).toEqual({ currentVersion: 3, labels: { AWSPREVIOUS: 2 } });
  });

  it('a write whose stages omit AWSCURRENT leaves the current version where it was', () => {
    const after = labelsAfterWrite({ currentVersion: 2, labels: { AWSPREVIOUS: 1 } }, 3, ['AWSPENDING']);
    expect(after).toEqual({ currentVersion: 2, labels: { AWSPREVIOUS: 1, AWSPENDING: 3 } });
  });

  it('a label is on at most one version: writing it on a new version takes it off the old one', () => {
    const after = labelsAfterWrite({ currentVersion: 2, labels: { AWSPENDING: 1, blue: 1 } }, 3, ['AWSPENDING']);
    expect(after.labels).toEqual({ AWSPENDING: 3, blue: 1 });
  });

  it("a new secret's first version must be AWSCURRENT", () => {
    expect(refused(() => labelsAfterWrite(undefined, 1, ['AWSPENDING']))).toContain('AWSCURRENT');
    expect(labelsAfterWrite(undefined, 1)).toEqual({ currentVersion: 1, labels: {} });
  });

  it('moving AWSCURRENT moves AWSPREVIOUS to the version that had it', () => {
    const after = labelsAfterMove({ currentVersion: 2, labels: { AWSPREVIOUS: 1, AWSPENDING: 3 } }, 'AWSCURRENT', 3, 2);
    expect(after).toEqual({ currentVersion: 3, labels: { AWSPREVIOUS: 2, AWSPENDING: 3 } });
  });

  it('moving a label that is on another version needs that version named as RemoveFromVersionId', () => {
    expect(refused(() => labelsAfterMove({ currentVersion: 2 }, 'AWSCURRENT', 1, undefined))).toContain('RemoveFromVersionId');
    expect(refused(() => labelsAfterMove({ currentVersion: 3 }, 'AWSCURRENT', 1, 2))).toContain('RemoveFromVersionId');
  });

  it('a RemoveFromVersionId that names no version (undefined) does not release a label on another version', () => {
    expect(refused(() => checkLabelRelease({ currentVersion: 3, labels: { blue: 2 } }, 'blue', 1, undefined))).toContain(
      'blue is on another version',
    );
    // A label on no version, or already on the version it moves to, is not held elsewhere.
    expect(() => checkLabelRelease({ currentVersion: 3, labels: {} }, 'blue', 1, undefined)).not.toThrow();
    expect(() => checkLabelRelease({ currentVersion: 3, labels: { blue: 1 } }, 'blue', 1, undefined)).not.toThrow();
  });

  it('a VersionStage must be on the version a VersionId names (a StageMismatchError, CONFLICT, otherwise)', () => {
    const secret = { currentVersion: 3, labels: { AWSPREVIOUS: 2, blue: 1 } };
    expect(() => checkStageOn(secret, 2, 'AWSPREVIOUS')).not.toThrow();
    expect(() => checkStageOn(secret, 3, 'AWSPREVIOUS')).toThrow(ConflictError);
    expect(() => checkStageOn(secret, 2, 'constructor')).toThrow('VersionStage: constructor is not on the version that VersionId names');
  });

  it('a version named as RemoveFromVersionId must carry the label', () => {
    expect(refused(() => labelsAfterMove({ currentVersion: 3, labels: {} }, 'blue', 2, 1))).toContain('does not carry blue');
  });

  it('AWSCURRENT can be moved but never taken off', () => {
    expect(refused(() => labelsAfterMove({ currentVersion: 3 }, 'AWSCURRENT', undefined, 3))).toContain('not taken off');
  });

  it('any other label can be taken off, and put on a version that has none', () => {
    expect(labelsAfterMove({ currentVersion: 3, labels: { blue: 2 } }, 'blue', undefined, 2)).toEqual({ currentVersion: 3, labels: {} });
    expect(labelsAfterMove({ currentVersion: 3, labels: {} }, 'blue', 1, undefined).labels).toEqual({ blue: 1 });
  });

  it('a move that names neither version is refused', () => {
    expect(refused(() => labelsAfterMove({ currentVersion: 3 }, 'blue', undefined, undefined))).toContain('at least one');
  });

  it('a label is 1 to 256 of A-Z a-z 0-9 _ . -, and is not given twice', () => {
    checkStages(['a', 'x'.repeat(256), 'A_b.c-9'], 'VersionStages');
    refused(() => checkStages(['x'.repeat(257)], 'VersionStages'));
    refused(() => checkStages([''], 'VersionStages'));
    refused(() => checkStages(['has space'], 'VersionStages'));
    expect(refused(() => checkStages(['a', 'a'], 'VersionStages'))).toContain('twice');
  });

  it('a version carries at most 20 labels', () => {
    const nineteen = Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`l${i}`, 2]));
    expect(stagesOf({ currentVersion: 2, labels: nineteen }, 2)).toHaveLength(20);
    expect(refused(() => labelsAfterMove({ currentVersion: 2, labels: nineteen }, 'one-more', 2, undefined))).toContain('at most 20');
    expect(refused(() => labelsAfterWrite({ currentVersion: 1, labels: {} }, 2, [...Object.keys(nineteen), 'AWSCURRENT', 'x']))).toContain(
      'at most 20',
    );
  });

  it("a failed rotation takes AWSPENDING off its token's version only", () => {
    expect(labelsWithout({ currentVersion: 2, labels: { AWSPENDING: 3 } }, 'AWSPENDING', 3).labels).toEqual({});
    expect(labelsWithout({ currentVersion: 2, labels: { AWSPENDING: 4 } }, 'AWSPENDING', 3).labels).toEqual({ AWSPENDING: 4 });
    expect(labelsWithout({ currentVersion: 3 }, 'AWSCURRENT', 3).currentVersion).toBe(3);
  });

  it('a new version takes the number after the highest, pending ones included', () => {
    expect(latestVersionOf({ currentVersion: 2, latestVersion: 4 })).toBe(4);
    expect(latestVersionOf({ currentVersion: 2 })).toBe(2);
    expect(latestVersionOf(undefined)).toBe(0);
  });

  it("a version's labels list AWS's own first", () => {
    expect(stagesOf({ currentVersion: 2, labels: { zeta: 2, AWSPENDING: 2, alpha: 2 } }, 2)).toEqual([
      'AWSCURRENT',
      'AWSPENDING',
      'alpha',
      'zeta',
    ]);
  });
});
