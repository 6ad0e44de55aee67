/**
 * What other features use of access: the refusals every service asks at its top (the policy's verdict as NOT_FOUND
 * or FORBIDDEN), and the tokens a new workspace's first key is issued with. Authentication, logins, access keys and
 * the compiling of policies stay inside this folder; the shapes of a caller are the platform's (principal.ts).
 * Entry modules besides this file (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry api-runtime.ts what every API function builds once per container: config, clients, the authenticator,
 * idempotency (not through this file: the rotation runner reaches it, and would carry the authenticator's chunks)
 * @entry access-key-wiring.ts the access-keys group's service, and what its routes accept and answer
 * @entry login-wiring.ts the login's service (functions/auth), and what its route accepts and answers
 */
export {
  assertMayCreateEnvironments,
  assertMayCreateProjects,
  assertMayManageAccessKeys,
  assertMayManageAuditStreams,
  assertMayManageReviewPolicies,
  assertMayManageSyncs,
  assertMayManageWebhooks,
  assertMayOperateDeliveries,
  assertMayReadAudit,
  mayCompareRepeatedWrite,
  requireAccess,
  type AccessRequest,
  type AccessScope,
} from './refusals.ts';
export { checksumHolds, hashToken, issuedTokenShape, issueToken, tokenPrefix } from './tokens.ts';
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
 * The stores' types, for a service that asks for some of their methods. The access-keys and auth functions build
 * access's services through the entry modules above, not through here: this file is in every API function's cold
 * start, and exporting the services from it adds the login's schemas and checks to all of them (+6 to +21 KB a
 * bundle, measured: esbuild keeps a module's top-level calls and places a module by static reachability, used or not).
 */
export type { AccessKeyStore } from './access-key-store.ts';
export type { LoginStore } from './login-store.ts';
/** The glob of permissions, which also matches the rotation functions' ARNs against the stack's patterns. */
/** The authority of each credential and what it may call, which the console's build and the permission table show. */
export { API_KEY_AUTHORITY, bypassesReview, machineAuthority, mayCall, mayReview, permissionTable, roleAuthority } from './permissions.ts';
