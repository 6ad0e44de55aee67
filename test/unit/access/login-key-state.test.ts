import { describe, expect, it } from 'vitest';
import { checkLoginKey } from '../../../shared/access/authenticate.ts';
import { AuthRequiredError } from '../../../shared/platform/errors.ts';

/**
 * A login token against its key's state on the workspace item (decisions.md, "Workload identity": revoking or
 * updating the key applies to its live tokens on their next request), whether or not the change has reached the
 * token's own item yet.
 */
describe('checkLoginKey', () => {
  const refusal = (tokenRevision: number, state: number | undefined) => {
    try {
      checkLoginKey(tokenRevision, state);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(AuthRequiredError);
      return (error as Error).message;
    }
  };

  it('lets a token through when its key was never changed, or not since its login', () => {
    expect(refusal(0, undefined)).toBeUndefined();
    expect(refusal(3, 3)).toBeUndefined();
    expect(refusal(4, 3)).toBeUndefined();
  });

  it('refuses every token of a revoked key (a state below 0)', () => {
    expect(refusal(0, -1_800_000_000)).toMatch(/revoked/);
    expect(refusal(7, -1)).toMatch(/revoked/);
  });

  it('refuses a token issued before the key last changed, so the workload logs in again under the new rules', () => {
    expect(refusal(2, 3)).toMatch(/changed after this token was issued; log in again/);
  });
});
