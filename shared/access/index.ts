/**
 * What other features use of access: the refusals every service asks at its top (the policy's verdict as NOT_FOUND
 * or FORBIDDEN), and the tokens a new workspace's first key is issued with. Authentication, logins, access keys and
 * the compiling of policies stay inside this folder; the shapes of a caller are the platform's (principal.ts).
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
export { makeDenialStore } from './denial-store.ts';
/** The glob of permissions, which also matches the rotation functions' ARNs against the stack's patterns. */
export { globMatcher } from './glob.ts';
