import { describe, expect, it } from 'vitest';
import { compilePolicy, withDefaults, type PermissionRuleInput } from '../../../shared/access/access-policy.ts';

/** The bulk reveal skips its per-key filter only for a policy that reveals everything (decisions.md, Hardening v1.3). */
const policyOf = (rules: PermissionRuleInput[]) => compilePolicy(rules.map(withDefaults));
const narrowReveal = {
  projects: ['app'],
  environments: ['dev'],
  keys: ['PUBLIC_URL'],
  actions: ['reveal'],
} as const satisfies PermissionRuleInput;

describe('revealsEverything', () => {
  it.each(['read', 'write', 'delete'] as const)('is false for %s everywhere with a narrow reveal, though it sees everything', (action) => {
    const policy = policyOf([{ actions: [action] }, { ...narrowReveal, actions: [...narrowReveal.actions] }]);
    expect(policy.seesEverything).toBe(true);
    expect(policy.revealsEverything).toBe(false);
  });

  it('is true for reveal everywhere without a deny, false with any deny or a narrower allow', () => {
    expect(policyOf([{ actions: ['reveal'] }]).revealsEverything).toBe(true);
    expect(policyOf([{ actions: ['read', 'reveal', 'write', 'delete'] }]).revealsEverything).toBe(true);
    expect(policyOf([{ actions: ['reveal'] }, { effect: 'deny', keys: ['X'], actions: ['reveal'] }]).revealsEverything).toBe(false);
    expect(policyOf([{ keys: ['*'], actions: ['reveal'] }]).revealsEverything).toBe(false);
    expect(policyOf([{ projects: ['app'], actions: ['reveal'] }]).revealsEverything).toBe(false);
  });
});
