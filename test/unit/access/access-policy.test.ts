import { describe, expect, it } from 'vitest';
import {
  compilePolicy,
  DEFAULT_RULES,
  withDefaults,
  type PermissionRule,
  type PermissionRuleInput,
  type PolicyAction,
} from '../../../shared/access/access-policy.ts';

const policyOf = (...rules: PermissionRuleInput[]) => compilePolicy(rules.map(withDefaults));
const secret = (project: string, environment: string, key: string) => ({ project, environment, key });
const ALL: PolicyAction[] = ['read', 'reveal', 'write', 'delete'];

describe('policy: globs', () => {
  it.each([
    // pattern, value, matches
    ['*', 'DATABASE_URL', true],
    ['*', 'db/url', false],
    ['**', 'db/url', true],
    ['**', '', true],
    ['db/*', 'db/url', true],
    ['db/*', 'db/primary/url', false],
    ['db/**', 'db/primary/url', true],
    ['db/**', 'db', false],
    ['**/url', 'a/b/url', true],
    ['?', 'a', true],
    ['?', '/', false],
    ['?', 'ab', false],
    ['API_?EY', 'API_KEY', true],
    ['API_KEY', 'api_key', false],
    ['a.b', 'a.b', true],
    ['a.b', 'aXb', false],
    ['[ab]', 'a', false],
    ['[ab]', '[ab]', true],
    ['x+', 'xx', false],
    ['x+', 'x+', true],
    ['(a|b)', 'a', false],
    ['^$', '^$', true],
    ['a\\b', 'a\\b', true],
    ['*_URL', 'DATABASE_URL', true],
    ['*_URL', 'DATABASE_URL_2', false],
  ])('%s against %s: %s', (pattern, value, expected) => {
    // Prepare
    const policy = policyOf({ keys: [pattern], actions: ['read'] });
    // Act / Assess: the whole key must match
    expect(policy.allows('read', secret('p', 'e', value))).toBe(expected);
  });

  it('matches projects and environments case-sensitively, whole', () => {
    const policy = policyOf({ projects: ['pay*'], environments: ['prod'], actions: ['reveal'] });
    expect(policy.allows('reveal', secret('payments', 'prod', 'K'))).toBe(true);
    expect(policy.allows('reveal', secret('Payments', 'prod', 'K'))).toBe(false);
    expect(policy.allows('reveal', secret('payments', 'prod-2', 'K'))).toBe(false);
    expect(policy.allows('reveal', secret('my-payments', 'prod', 'K'))).toBe(false);
  });

  it('decides a key of 255 units against **.**.**.**.pem (a backtracking regular expression took seconds)', () => {
    // Prepare: shared/platform/glob.ts's matcher, as every rule list uses it (its steps are bounded in glob.test.ts)
    const policy = policyOf({ keys: ['**.**.**.**.pem'], actions: ['reveal'] });
    // Act / Assess: the outcomes; no time is asserted
    expect(policy.allows('reveal', secret('p', 'e', `${'.'.repeat(251)}.pex`))).toBe(false);
    expect(policy.allows('reveal', secret('p', 'e', `${'a'.repeat(251)}.pem`))).toBe(false);
    expect(policy.allows('reveal', secret('p', 'e', `${'a.'.repeat(125)}a.pem`))).toBe(true);
  });
});

describe('policy: rules', () => {
  it('fills the defaults of decisions.md: allow, every project and environment, every key', () => {
    expect(withDefaults({ actions: ['read'] })).toEqual({
      effect: 'allow',
      projects: ['*'],
      environments: ['*'],
      keys: ['**'],
      actions: ['read'],
    });
    const everything = compilePolicy(DEFAULT_RULES);
    for (const action of ALL) expect(everything.allows(action, secret('p', 'e', 'a/b/c'))).toBe(true);
  });

  it('grants read with reveal, write or delete of what the same rule matches, and nothing else', () => {
    for (const action of ['reveal', 'write', 'delete'] as const) {
      const policy = policyOf({ environments: ['staging'], actions: [action] });
      expect(ALL.filter((a) => policy.allows(a, secret('p', 'staging', 'K')))).toEqual(['read', action]);
      expect(ALL.filter((a) => policy.allows(a, secret('p', 'prod', 'K')))).toEqual([]);
    }
  });

  it('lets a deny win over any allow, a deny of read deny every action, and a deny of one action deny that one alone', () => {
    // Prepare
    const noProdReveal = policyOf({ actions: ALL }, { effect: 'deny', environments: ['prod'], actions: ['reveal'] });
    const noProdAtAll = policyOf({ actions: ALL }, { effect: 'deny', environments: ['prod'], keys: ['db/**'], actions: ['read'] });
    // Act / Assess
    expect(ALL.filter((a) => noProdReveal.allows(a, secret('p', 'prod', 'K')))).toEqual(['read', 'write', 'delete']);
    expect(ALL.filter((a) => noProdAtAll.allows(a, secret('p', 'prod', 'db/url')))).toEqual([]);
    expect(ALL.filter((a) => noProdAtAll.allows(a, secret('p', 'prod', 'API_KEY')))).toEqual(ALL);
  });

  it('allows nothing without an allow rule, and nothing at all with no rules', () => {
    expect(policyOf({ effect: 'deny', environments: ['prod'], actions: ['write'] }).allows('read', secret('p', 'staging', 'K'))).toBe(
      false,
    );
    expect(compilePolicy([]).allows('read', secret('p', 'e', 'K'))).toBe(false);
  });
});

describe('policy: visibility', () => {
  it('shows a project an allow rule matches, unless a read deny over every environment and key matches it', () => {
    // Prepare
    const policy = policyOf(
      { projects: ['pay*', 'billing'], actions: ['read'] },
      { effect: 'deny', projects: ['payroll'], actions: ['read'] },
      { effect: 'deny', projects: ['payments'], environments: ['prod'], actions: ['read'] },
      { effect: 'deny', projects: ['billing'], keys: ['db/**'], actions: ['read'] },
    );
    // Act / Assess: only the deny over every environment and key hides the project itself
    expect(['payments', 'payroll', 'billing', 'other'].filter((p) => policy.projectVisible(p))).toEqual(['payments', 'billing']);
    expect(policy.environmentVisible('payments', 'prod')).toBe(false);
    expect(policy.environmentVisible('payments', 'staging')).toBe(true);
    expect(policy.environmentVisible('billing', 'prod')).toBe(true);
    expect(policy.environmentVisible('other', 'prod')).toBe(false);
  });

  it('shows an environment an allow rule matches with its project, and a write deny hides nothing', () => {
    const policy = policyOf(
      { projects: ['p'], environments: ['staging', 'dev-*'], actions: ['write'] },
      { effect: 'deny', environments: ['*'], actions: ['write'] },
    );
    expect(['staging', 'dev-a', 'prod'].filter((e) => policy.environmentVisible('p', e))).toEqual(['staging', 'dev-a']);
    expect(policy.projectVisible('p')).toBe(true);
    expect(policy.allows('write', secret('p', 'staging', 'K'))).toBe(false);
    expect(policy.allows('read', secret('p', 'staging', 'K'))).toBe(true);
  });

  it('tells whether any rule could allow an action somewhere in an environment (the bulk reveal refuses when none could)', () => {
    const policy = policyOf(
      { environments: ['prod'], keys: ['PUBLIC_*'], actions: ['reveal'] },
      { environments: ['staging'], actions: ['read'] },
    );
    expect(policy.mayAnywhere('reveal', 'p', 'prod')).toBe(true);
    expect(policy.mayAnywhere('reveal', 'p', 'staging')).toBe(false);
    expect(policy.mayAnywhere('read', 'p', 'staging')).toBe(true);
  });
});

describe('policy: size', () => {
  it('decides over 50 rules of 20 patterns each, every pattern reachable', () => {
    // Prepare: rule r allows keys R<r>_K<k> for k < 20 in environment env-<r>; the last rule denies one of them
    const rules: PermissionRuleInput[] = Array.from({ length: 49 }, (_, r) => ({
      environments: [`env-${r}`],
      keys: Array.from({ length: 20 }, (_, k) => `R${r}_K${k}`),
      actions: ['reveal'],
    }));
    rules.push({ effect: 'deny', environments: ['env-7'], keys: Array.from({ length: 20 }, (_, k) => `R7_K${k}`), actions: ['reveal'] });
    const policy = policyOf(...rules);
    // Act / Assess
    for (let r = 0; r < 49; r++) {
      for (let k = 0; k < 20; k++) expect(policy.allows('reveal', secret('p', `env-${r}`, `R${r}_K${k}`))).toBe(r !== 7);
      expect(policy.allows('reveal', secret('p', `env-${r}`, `R${r}_K20`))).toBe(false);
      expect(policy.allows('reveal', secret('p', `env-${r + 1}`, `R${r}_K0`))).toBe(false);
    }
    expect(policy.allows('read', secret('p', 'env-7', 'R7_K0'))).toBe(true);
  });
});

describe('policy: what lists and search may skip', () => {
  const rule = (overrides: Partial<PermissionRule>): PermissionRule => withDefaults({ actions: ['read'], ...overrides });

  it('sees everything only with an allow rule over every project, environment and key, and no deny rule', () => {
    expect(compilePolicy([rule({})]).seesEverything).toBe(true);
    expect(compilePolicy([rule({ projects: ['**'], environments: ['*'] })]).seesEverything).toBe(true);
    expect(compilePolicy([rule({ keys: ['*'] })]).seesEverything).toBe(false);
    expect(compilePolicy([rule({ environments: ['prod'] })]).seesEverything).toBe(false);
    expect(compilePolicy([rule({}), rule({ effect: 'deny', keys: ['NONE'] })]).seesEverything).toBe(false);
  });

  it('names the projects and environments of literal allow rules (null: every environment), or nothing for a pattern', () => {
    const scope = compilePolicy([
      rule({ projects: ['api'], environments: ['dev', 'staging'] }),
      rule({ projects: ['api'], environments: ['prod'] }),
      rule({ projects: ['web'] }),
    ]).literalScope;
    expect(scope && Object.fromEntries([...scope].map(([p, e]) => [p, e && [...e].sort()]))).toEqual({
      api: ['dev', 'prod', 'staging'],
      web: null,
    });
    expect(
      compilePolicy([rule({ projects: ['api'] }), rule({ projects: ['api'], environments: ['dev'] })]).literalScope?.get('api'),
    ).toBeNull();
    expect(compilePolicy([rule({ projects: ['api-*'] })]).literalScope).toBeUndefined();
    expect(compilePolicy([rule({ projects: ['api'], environments: ['d?v'] })]).literalScope).toBeUndefined();
    expect(compilePolicy([rule({})]).literalScope).toBeUndefined();
    // Deny rules only narrow: they do not widen the scope.
    expect([
      ...compilePolicy([rule({ projects: ['api'] }), rule({ effect: 'deny', projects: ['*'], keys: ['X'] })]).literalScope!.keys(),
    ]).toEqual(['api']);
  });
});

/** The bulk reveal skips its per-key filter only for a policy that reveals everything (decisions.md, Hardening v1.3). */
const narrowReveal = {
  projects: ['app'],
  environments: ['dev'],
  keys: ['PUBLIC_URL'],
  actions: ['reveal'],
} as const satisfies PermissionRuleInput;

describe('revealsEverything', () => {
  it.each(['read', 'write', 'delete'] as const)('is false for %s everywhere with a narrow reveal, though it sees everything', (action) => {
    const policy = policyOf({ actions: [action] }, { ...narrowReveal, actions: [...narrowReveal.actions] });
    expect(policy.seesEverything).toBe(true);
    expect(policy.revealsEverything).toBe(false);
  });

  it('is true for reveal everywhere without a deny, false with any deny or a narrower allow', () => {
    expect(policyOf({ actions: ['reveal'] }).revealsEverything).toBe(true);
    expect(policyOf({ actions: ['read', 'reveal', 'write', 'delete'] }).revealsEverything).toBe(true);
    expect(policyOf({ actions: ['reveal'] }, { effect: 'deny', keys: ['X'], actions: ['reveal'] }).revealsEverything).toBe(false);
    expect(policyOf({ keys: ['*'], actions: ['reveal'] }).revealsEverything).toBe(false);
    expect(policyOf({ projects: ['app'], actions: ['reveal'] }).revealsEverything).toBe(false);
  });
});
