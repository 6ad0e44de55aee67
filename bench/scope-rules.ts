// The rule sets of the bench's scoped access keys (decisions.md, "Permissions of access keys").
import type { PermissionRuleInput } from '../shared/access/access-policy.ts';

/** `n` patterns made from `make(j)`. */
const patterns = (n: number, make: (j: number) => string) => Array.from({ length: n }, (_, j) => make(j));

/**
 * The heaviest rule set a key may have, 50 rules, which lets it do everything to `project`/`environment` and nothing
 * else: 47 allow rules that never match its secrets, then the one that does (last, so every check walks them all),
 * and 2 deny rules that never match (asked on every allowed action). The rules that miss miss late where they can:
 * a third name the project and miss the environment, a third name every project and the environment and miss the
 * key, the rest miss the project; every fifth lists 20 patterns.
 */
export function fiftyRules(project: string, environment: string): PermissionRuleInput[] {
  const missing: PermissionRuleInput[] = Array.from({ length: 47 }, (_, i) => {
    const wide = i % 5 === 0 ? 20 : 3;
    const keys = patterns(wide, (j) => (j % 2 ? `TEAM_${i}_${j}_*` : `**/APP_${i}_${j}_??`));
    const actions: PermissionRuleInput['actions'] = i % 2 ? ['read', 'reveal'] : ['read', 'reveal', 'write', 'delete'];
    switch (i % 3) {
      case 0:
        return { projects: [project], environments: patterns(wide, (j) => `staging-${i}-${j}-*`), keys, actions };
      case 1:
        return { projects: ['*'], environments: [environment], keys, actions };
      default:
        return { projects: patterns(wide, (j) => `team-${i}-${j}-*`), environments: ['*'], keys: ['**'], actions };
    }
  });
  const matching: PermissionRuleInput = {
    projects: [project],
    environments: [environment],
    keys: ['**'],
    actions: ['read', 'reveal', 'write', 'delete'],
  };
  const denies: PermissionRuleInput[] = [
    {
      effect: 'deny',
      projects: ['*'],
      environments: [environment],
      keys: patterns(20, (j) => `BREAK_GLASS_${j}_*`),
      actions: ['reveal', 'write', 'delete'],
    },
    { effect: 'deny', projects: patterns(20, (j) => `retired-${j}-*`), actions: ['read'] },
  ];
  return [...missing, matching, ...denies];
}

/** One environment of one project, read only: the key of the read-units measurement (bench/scope-reads.ts). */
export const oneEnvironmentReader = (project: string, environment: string): PermissionRuleInput[] => [
  { projects: [project], environments: [environment], actions: ['read'] },
];
