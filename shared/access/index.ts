/**
 * What other features use of access: the refusals every service asks at its top (the policy's verdict as NOT_FOUND
 * or FORBIDDEN), and the tokens a new workspace's first key is issued with. Authentication, logins, access keys and
 * the compiling of policies stay inside this folder; the shapes of a caller are the platform's (principal.ts).
 * Entry modules besides this file (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry access-key-answers.ts what the access-keys routes answer, for them and the API description
 * @entry login-schemas.ts what the auth and access-keys routes accept of logins and tokens, and the login's answer
 * @entry permission-schemas.ts the permission rules and CIDRs the access-keys routes accept
 */
export {
  assertMayCreateEnvironments,
  assertMayCreateProjects,
  assertMayManageAccessKeys,
  assertMayManageWebhooks,
  assertMayOperateDeliveries,
  assertMayReadAudit,
  mayCompareRepeatedWrite,
  requireAccess,
  type AccessRequest,
  type AccessScope,
} from './refusals.ts';
export { hashToken, issueToken, tokenPrefix } from './tokens.ts';
export {
  ExpiredSessionError,
  makeSigV4Authenticator,
  SignatureMismatchError,
  UnrecognizedKeyError,
  type SigV4Authenticator,
  type SignedBy,
} from './sigv4-credentials.ts';
/** The counter of denied attempts, which every store that refuses writes through (the secrets store's wiring). */
export { makeDenialStore, type DenialStore } from './denial-store.ts';
/**
 * The stores' types, for a service that asks for some of their methods. The functions build access's services
 * through access-key-wiring.ts, login-wiring.ts and api-runtime.ts, not through here: this file is in every API
 * function's cold start, and the services would bring the login's schemas and the workspaces' index (with the project
 * store the AWS API loads only with its later operations) into all of them.
 */
export type { AccessKeyStore } from './access-key-store.ts';
export type { LoginStore } from './login-store.ts';
/** The glob of permissions, which also matches the rotation functions' ARNs against the stack's patterns. */
export { globMatcher } from './glob.ts';
/** The authority of each credential and what it may call, which the console's build and the permission table show. */
export { API_KEY_AUTHORITY, machineAuthority, mayCall, permissionTable, roleAuthority } from './permissions.ts';
