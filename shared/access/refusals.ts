/**
 * Every refusal a service gives, in one place: the policy's verdict (shared/access/access-policy.ts, permissions.ts) turned
 * into the answer decisions.md names. What a caller may not read does not exist for it (NOT_FOUND, worded as for an
 * absent object); what it may read but not do is FORBIDDEN; the workspace's administration is FORBIDDEN to anyone
 * but an API key or an admin. Services ask at their top, whatever their route already checked, so a service reused
 * behind another route or protocol stays closed.
 */
import { ForbiddenError, NotFoundError } from '../platform/errors.ts';
import type { Policy, PolicyAction } from './access-policy.ts';
import type { Principal } from '../platform/principal.ts';

/** Where a decision looks: a project, an environment of it, or a secret's key in that environment. */
export interface AccessScope {
  project: string;
  environment?: string | undefined;
  key?: string | undefined;
}

/** Whether the scope exists for the policy: a project or environment it may see, a secret it may read. */
function sees(policy: Policy, scope: AccessScope): boolean {
  if (scope.environment === undefined) return policy.projectVisible(scope.project);
  if (scope.key === undefined) return policy.environmentVisible(scope.project, scope.environment);
  return policy.allows('read', { project: scope.project, environment: scope.environment, key: scope.key });
}

/** Whether the policy allows `action` on the secret, or (an environment without a key) on some key of it. */
function may(policy: Policy, action: PolicyAction, scope: AccessScope): boolean {
  if (scope.environment === undefined) return policy.projectVisible(scope.project);
  if (scope.key === undefined) return policy.mayAnywhere(action, scope.project, scope.environment);
  return policy.allows(action, { project: scope.project, environment: scope.environment, key: scope.key });
}

const placeOf = (scope: AccessScope) =>
  scope.key === undefined
    ? `any secret of ${scope.project}/${scope.environment ?? '*'}`
    : `${scope.key} in ${scope.project}/${scope.environment}`;

/** What a refusal says and does: the NOT_FOUND message, and, for an action, the audit of a FORBIDDEN. */
export interface AccessRequest<T> {
  /** The NOT_FOUND message, as for an object that does not exist. */
  notFound: string;
  /** An action beyond reading, FORBIDDEN unless allowed. */
  action?: PolicyAction | undefined;
  /**
   * Where the action is decided, when not where visibility is: a write names a key that may not exist yet, so its
   * environment decides NOT_FOUND and its key FORBIDDEN (the answer tells nothing of the key's existence).
   */
  on?: ((found: T) => AccessScope) | undefined;
  /** Records the refused attempt (`access.denied`) before FORBIDDEN is thrown. */
  denied?: ((found: T) => Promise<void>) | undefined;
}

/**
 * The one translation of the policy's verdict into an answer: `found` when it exists and the caller may see it (and
 * do `request.action` on it); NOT_FOUND when it is absent or hidden (the same answer, so nothing tells them apart);
 * FORBIDDEN, after `request.denied`, when it is visible but the action is not allowed.
 */
export async function requireAccess<T>(
  principal: Principal,
  found: T | undefined,
  scopeOf: (found: T) => AccessScope,
  request: AccessRequest<T>,
): Promise<T> {
  const { policy } = principal.authority;
  if (found === undefined || !sees(policy, scopeOf(found))) throw new NotFoundError(request.notFound);
  const { action } = request;
  const target = (request.on ?? scopeOf)(found);
  if (action === undefined || may(policy, action, target)) return found;
  await request.denied?.(found);
  throw new ForbiddenError(`This credential may not ${action} ${placeOf(target)}`);
}

/**
 * Whether a repeated AWS write may be compared with the value of the version its `ClientRequestToken` names
 * (decisions.md v1.4, Hardening): only for a caller who may `reveal` the secret, or who wrote that version itself (an
 * SDK's automatic retry of its own write). Anyone else would learn whether a guessed value is the stored one.
 */
export function mayCompareRepeatedWrite(
  principal: Principal,
  secret: { projectSlug: string; envSlug: string; key: string },
  writtenBy: string,
): boolean {
  if (writtenBy === principal.actorSub) return true;
  return principal.authority.policy.allows('reveal', { project: secret.projectSlug, environment: secret.envSlug, key: secret.key });
}

/** The parts of the workspace's administration, each refused by its own function below. */
type AdminArea =
  | 'manage access keys'
  | 'manage webhook endpoints'
  | 'read or operate webhook deliveries'
  | 'read the audit log'
  | 'create projects'
  | 'create environments'
  | 'manage review policies'
  | 'manage syncs'
  | 'manage audit streams';

function refuseUnlessAdmin(principal: Principal, area: AdminArea): void {
  if (!principal.authority.admin)
    throw new ForbiddenError(`This credential may not ${area}: it needs an API key or a person with the admin role`);
}

/** FORBIDDEN unless the caller administers the workspace: access keys (create, list, update, revoke). */
export const assertMayManageAccessKeys = (principal: Principal): void => refuseUnlessAdmin(principal, 'manage access keys');
/** FORBIDDEN unless the caller administers the workspace: webhook endpoints and their signing secrets. */
export const assertMayManageWebhooks = (principal: Principal): void => refuseUnlessAdmin(principal, 'manage webhook endpoints');
/** FORBIDDEN unless the caller administers the workspace: deliveries, retries, test events, recoveries, statistics. */
export const assertMayOperateDeliveries = (principal: Principal): void =>
  refuseUnlessAdmin(principal, 'read or operate webhook deliveries');
/** FORBIDDEN unless the caller administers the workspace: the audit log. */
export const assertMayReadAudit = (principal: Principal): void => refuseUnlessAdmin(principal, 'read the audit log');
/** FORBIDDEN unless the caller administers the workspace: a new project. */
export const assertMayCreateProjects = (principal: Principal): void => refuseUnlessAdmin(principal, 'create projects');
/** FORBIDDEN unless the caller administers the workspace: a new environment. */
export const assertMayCreateEnvironments = (principal: Principal): void => refuseUnlessAdmin(principal, 'create environments');
/** FORBIDDEN unless the caller administers the workspace: an environment's review policy (set, read, remove). */
export const assertMayManageReviewPolicies = (principal: Principal): void => refuseUnlessAdmin(principal, 'manage review policies');
/** FORBIDDEN unless the caller administers the workspace: syncs (create, list, show, change, run, delete). */
export const assertMayManageSyncs = (principal: Principal): void => refuseUnlessAdmin(principal, 'manage syncs');
/** FORBIDDEN unless the caller administers the workspace: audit streams (create, list, show, change, delete). */
export const assertMayManageAuditStreams = (principal: Principal): void => refuseUnlessAdmin(principal, 'manage audit streams');
