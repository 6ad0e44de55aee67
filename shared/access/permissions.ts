/**
 * Who may do what, beyond the rules of one secret: the roles of people, what an API key and a machine token are, and
 * which routes need the workspace's administration (decisions.md, "Roles of people" and "Permissions of access
 * keys"). Every credential is a policy of the same kind (shared/access/access-policy.ts) plus whether it administers the
 * workspace; the README's permission table is printed from here (`npm run docs:permissions`).
 */
import { compilePolicy, DEFAULT_RULES, type PermissionRule, type Policy, type PolicyAction } from './access-policy.ts';
import type { Authority, CredentialKind } from '../platform/principal.ts';
import { gunzipSync } from 'node:zlib';

import { ROLES, type Role } from '../platform/roles.ts';

export { ROLES, type Role } from '../platform/roles.ts';

/**
 * What a route needs of its caller before any service runs: `workspace` is every credential (the services ask the
 * caller's policy about each project, environment and secret); `admin` is the workspace's administration
 * (creating projects and environments, access keys, webhooks, deliveries, audit).
 */
export type { RouteAccess } from '../platform/http/authentication.ts';
import type { RouteAccess } from '../platform/http/authentication.ts';

const ALL_SECRET_ACTIONS = DEFAULT_RULES;
const READ_ONLY: readonly PermissionRule[] = [{ effect: 'allow', projects: ['*'], environments: ['*'], keys: ['**'], actions: ['read'] }];

/** The rules of each role: a viewer reads, a developer and an admin do everything to secrets. */
export const ROLE_RULES: Record<Role, readonly PermissionRule[]> = {
  viewer: READ_ONLY,
  developer: ALL_SECRET_ACTIONS,
  admin: ALL_SECRET_ACTIONS,
};

// A principal's authority is defined with the principal (principal.ts), which this module's checks read.
export type { Authority } from '../platform/principal.ts';

/** Each role's authority, compiled once per container. */
const ROLE_AUTHORITY: Record<Role, Authority> = {
  viewer: { policy: compilePolicy(ROLE_RULES.viewer), admin: false },
  developer: { policy: compilePolicy(ROLE_RULES.developer), admin: false },
  admin: { policy: compilePolicy(ROLE_RULES.admin), admin: true },
};

/** A person's authority, by role. */
export const roleAuthority = (role: Role): Authority => ROLE_AUTHORITY[role];

/** An API key (`sk_live_`) is an admin. */
export const API_KEY_AUTHORITY: Authority = ROLE_AUTHORITY.admin;

/** Compiled policies of machine tokens, by their rules' digest: compiled once per container and rule set. */
const compiledRules = new Map<string, Policy>();
const COMPILED_RULES_KEPT = 500;
const DEFAULT_MACHINE_POLICY = compilePolicy(DEFAULT_RULES);

/**
 * A machine token's authority: its access key's rules (stored on the token item as their gzipped JSON text with a
 * digest of the text; absent for a key made without `permissions`, which then has the defaults). Never
 * administration. The compiled policy is kept per digest, so a key's requests inflate and compile nothing after the
 * first, and a `PATCH` (new rules, a new digest) compiles once again.
 */
export function machineAuthority(rules?: Uint8Array, rulesId?: string): Authority {
  if (rules === undefined || rulesId === undefined) return { policy: DEFAULT_MACHINE_POLICY, admin: false };
  const id = rulesId;
  let policy = compiledRules.get(id);
  if (!policy) {
    policy = compilePolicy(JSON.parse(gunzipSync(rules).toString('utf8')) as PermissionRule[]);
    if (compiledRules.size >= COMPILED_RULES_KEPT) compiledRules.delete(compiledRules.keys().next().value!);
    compiledRules.set(id, policy);
  }
  return { policy, admin: false };
}

/**
 * A person's role from the access token's claims: the claim named `claim` is a string or an array of strings; the
 * strongest recognised role wins, other values are ignored; with none recognised, `defaultRole`.
 */
export function roleFromClaims(claims: Record<string, unknown>, claim: string, defaultRole: Role): Role {
  const value = claims[claim];
  const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  let strongest = -1;
  for (const v of values) strongest = Math.max(strongest, ROLES.indexOf(v as Role));
  return strongest < 0 ? defaultRole : ROLES[strongest]!;
}

/** Whether a caller with this authority may call a route that needs `access`. */
export function mayCall(authority: Authority, access: RouteAccess): boolean {
  return access === 'workspace' || authority.admin;
}

/**
 * Whether a caller may review change requests (decisions.md v1.4): a person with the role admin or developer, or an
 * API key. Never a machine token (a workload cannot be the second person) nor a viewer.
 */
export function mayReview(caller: { kind: CredentialKind | undefined; authority: Authority }): boolean {
  if (caller.kind === 'api_key') return true;
  return caller.kind === 'user' && (caller.authority === ROLE_AUTHORITY.admin || caller.authority === ROLE_AUTHORITY.developer);
}

/** Whether a caller writes to a reviewed environment directly: its credential is one the review policy's `bypass` names. */
export function bypassesReview(caller: { credentialId: string }, policy: { bypass: readonly string[] }): boolean {
  return policy.bypass.includes(caller.credentialId);
}

/** The credentials of the permission table, in its column order. */
type Column = { title: string; kind: CredentialKind; authority: Authority };
// Built when the table is printed (functions, not module-level values), so no Lambda bundle carries them.
const credentialColumns = (): readonly Column[] => [
  { title: 'viewer', kind: 'user', authority: ROLE_AUTHORITY.viewer },
  { title: 'developer', kind: 'user', authority: ROLE_AUTHORITY.developer },
  { title: 'admin', kind: 'user', authority: ROLE_AUTHORITY.admin },
  { title: 'API key (`sk_live_`)', kind: 'api_key', authority: API_KEY_AUTHORITY },
  { title: 'access key (`st_`), default rules', kind: 'machine', authority: machineAuthority() },
];

/** The rows of the permission table: what each asks of an authority. */
const tableRows = (): readonly { what: string; may: (column: Column) => boolean }[] => [
  ...(
    [
      ['read', 'list and read projects, environments, secrets (no value), versions; search'],
      ['reveal', 'reveal values (by id, by path, a whole environment)'],
      ['write', 'write secrets, roll back'],
      ['delete', 'delete and restore secrets'],
    ] as const satisfies readonly (readonly [PolicyAction, string])[]
  ).map(([action, what]) => ({
    what,
    may: ({ authority }: Column) => authority.policy.mayAnywhere(action, 'any-project', 'any-environment'),
  })),
  { what: 'review change requests (never their own)', may: mayReview },
  { what: 'create projects and environments', may: ({ authority }) => mayCall(authority, 'admin') },
  { what: 'access keys, webhooks, deliveries, audit', may: ({ authority }) => mayCall(authority, 'admin') },
];

/**
 * The README's permission table, printed from the decisions above (so it cannot drift from them). An access key
 * made with `permissions` has exactly what its rules allow, within the last column.
 */
export function permissionTable(): string {
  const columns = credentialColumns();
  const header = `| | ${columns.map((column) => column.title).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---').join('|')}|`;
  const rows = tableRows().map(
    (row) => `| ${row.what} | ${columns.map((column) => (row.may(column) ? 'yes' : 'FORBIDDEN')).join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}
