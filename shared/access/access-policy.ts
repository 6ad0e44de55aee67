import { globMatcher, isLiteralGlob } from '../platform/glob.ts';
import type { PermissionRule, Policy, PolicyAction, PolicyTarget } from '../platform/principal.ts';

export type { PermissionRule, Policy, PolicyAction, PolicyTarget };

/**
 * The one place that knows the rules of a credential (decisions.md, "Permissions of access keys"): rules compiled
 * once (globs to matchers, shared/platform/glob.ts), asked "may it do this action on this secret" and "may it see this
 * project or environment". Services ask; routes and stores never decide.
 */

/** What a rule can grant or deny. `reveal`, `write` and `delete` imply `read` of what the same allow rule matches. */
export const POLICY_ACTIONS = ['read', 'reveal', 'write', 'delete'] as const satisfies readonly PolicyAction[];
// Every action of the type is in the list: the list is what schemas and the permission table enumerate.
const EVERY_ACTION_LISTED: Exclude<PolicyAction, (typeof POLICY_ACTIONS)[number]> extends never ? true : false = true;
void EVERY_ACTION_LISTED;

/** A rule as a client may send it: only `actions` is required. */
export type PermissionRuleInput = Partial<Omit<PermissionRule, 'actions'>> & Pick<PermissionRule, 'actions'>;

/** What a key without `permissions` may do: what a machine token could do before permissions existed. */
export const DEFAULT_RULES: readonly PermissionRule[] = [
  { effect: 'allow', projects: ['*'], environments: ['*'], keys: ['**'], actions: ['read', 'reveal', 'write', 'delete'] },
];

/** A rule with the defaults of decisions.md: allow, every project and environment, every key. */
export function withDefaults(rule: PermissionRuleInput): PermissionRule {
  return {
    effect: rule.effect ?? 'allow',
    projects: rule.projects ?? ['*'],
    environments: rule.environments ?? ['*'],
    keys: rule.keys ?? ['**'],
    actions: rule.actions,
  };
}

/** The projects and environments allow rules name by literal slugs (see `Policy.literalScope`). */
function literalScopeOf(allowRules: readonly PermissionRule[]): Map<string, Set<string> | null> | undefined {
  const scope = new Map<string, Set<string> | null>();
  for (const rule of allowRules) {
    if (!rule.projects.every(isLiteralGlob)) return undefined;
    const everyEnvironment = rule.environments.some((e) => e === '*' || e === '**');
    if (!everyEnvironment && !rule.environments.every(isLiteralGlob)) return undefined;
    for (const project of rule.projects) {
      const known = scope.get(project);
      if (known === null) continue;
      if (everyEnvironment) scope.set(project, null);
      else scope.set(project, new Set([...(known ?? []), ...rule.environments]));
    }
  }
  return scope;
}

interface CompiledRule {
  rule: PermissionRule;
  project: (slug: string) => boolean;
  environment: (slug: string) => boolean;
  key: (key: string) => boolean;
  /** The actions the rule covers: an allow rule's implied `read` included; a deny rule's `read` covers every action. */
  covers: (action: PolicyAction) => boolean;
  /** The same actions as bits (ACTION_BITS). */
  mask: number;
  /** A deny of `read` over every environment (for a project) or every key (for an environment): it hides them. */
  hidesProjects: boolean;
  hidesEnvironments: boolean;
}

/** One bit per action, for a decision on all four at once. */
const ACTION_BITS: Record<PolicyAction, number> = { read: 1, reveal: 2, write: 4, delete: 8 };
const EVERY_ACTION = 15;

function compileRule(rule: PermissionRule): CompiledRule {
  const actions = new Set(rule.actions);
  const deniesAll = rule.effect === 'deny' && actions.has('read');
  const bits = rule.actions.reduce((sum, action) => sum | ACTION_BITS[action], 0);
  const hidesEnvironments = deniesAll && rule.keys.length === 1 && rule.keys[0] === '**';
  return {
    rule,
    project: globMatcher(rule.projects),
    environment: globMatcher(rule.environments),
    key: globMatcher(rule.keys),
    covers: (action) => deniesAll || actions.has(action) || (rule.effect === 'allow' && action === 'read'),
    mask: deniesAll ? EVERY_ACTION : rule.effect === 'allow' ? bits | ACTION_BITS.read : bits,
    hidesEnvironments,
    hidesProjects: hidesEnvironments && rule.environments.length === 1 && rule.environments[0] === '*',
  };
}

/** An environment's share of the rules: those whose project and environment patterns match it. */
interface EnvironmentRules {
  allow: CompiledRule[];
  deny: CompiledRule[];
}

/** Environments whose share of the rules, and secrets whose decision, a policy keeps (then it starts again: a bound). */
const ENVIRONMENTS_KEPT = 1000;
const DECISIONS_KEPT = 10_000;

/** Compiles a credential's rules once (per container and credential); the answer decides without compiling again. */
export function compilePolicy(rules: readonly PermissionRule[]): Policy {
  const compiled = rules.map(compileRule);
  const allowRules = compiled.filter((c) => c.rule.effect === 'allow');
  const denyRules = compiled.filter((c) => c.rule.effect === 'deny');
  // Each environment's share of the rules, found once: a decision on a key then tries only the rules that can apply
  // there (a bulk load asks for every key of one environment).
  const shares = new Map<string, EnvironmentRules>();
  const shareOf = (project: string, environment: string): EnvironmentRules => {
    const id = `${project}/${environment}`;
    let share = shares.get(id);
    if (!share) {
      const here = (c: CompiledRule) => c.project(project) && c.environment(environment);
      share = { allow: allowRules.filter(here), deny: denyRules.filter(here) };
      if (shares.size >= ENVIRONMENTS_KEPT) shares.clear();
      shares.set(id, share);
    }
    return share;
  };
  // What it may do to each secret it was asked about, all four actions at once: a key's repeated requests (a service
  // revealing the same secrets, a bulk load of the same environment) decide without a pattern test.
  const decisions = new Map<string, number>();
  const allowedActions = (target: PolicyTarget): number => {
    const id = `${target.project}/${target.environment}/${target.key}`;
    let mask = decisions.get(id);
    if (mask === undefined) {
      const share = shareOf(target.project, target.environment);
      let allowed = 0;
      let denied = 0;
      for (const c of share.allow) if ((allowed | c.mask) !== allowed && c.key(target.key)) allowed |= c.mask;
      for (const c of share.deny) if ((allowed & ~denied & c.mask) !== 0 && c.key(target.key)) denied |= c.mask;
      mask = allowed & ~denied;
      if (decisions.size >= DECISIONS_KEPT) decisions.clear();
      decisions.set(id, mask);
    }
    return mask;
  };
  // `*` matches every slug (slugs never hold `/`), `**` every key.
  const everywhere = (rule: PermissionRule) =>
    rule.projects.some((p) => p === '*' || p === '**') &&
    rule.environments.some((e) => e === '*' || e === '**') &&
    rule.keys.includes('**');
  return {
    rules,
    seesEverything: denyRules.length === 0 && allowRules.some((c) => everywhere(c.rule)),
    revealsEverything: denyRules.length === 0 && allowRules.some((c) => everywhere(c.rule) && c.rule.actions.includes('reveal')),
    literalScope: literalScopeOf(allowRules.map((c) => c.rule)),
    allows: (action, target) => (allowedActions(target) & ACTION_BITS[action]) !== 0,
    projectVisible: (project) =>
      allowRules.some((c) => c.project(project)) && !denyRules.some((c) => c.hidesProjects && c.project(project)),
    environmentVisible: (project, environment) =>
      allowRules.some((c) => c.project(project) && c.environment(environment)) &&
      !denyRules.some((c) => c.hidesEnvironments && c.project(project) && c.environment(environment)),
    mayAnywhere: (action, project, environment) =>
      allowRules.some((c) => c.covers(action) && c.project(project) && c.environment(environment)),
  };
}
