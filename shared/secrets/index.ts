/**
 * What other features use of secrets: the services' types, which the AWS API adapter (shared/aws/) calls as the REST
 * routes do, the records they answer, and the errors it tells apart. The services themselves are made by the
 * functions that serve them: the reveals (GetSecretValue's, at the AWS API's cold start) through this file, the
 * whole service and the purger through their wiring. Entry modules besides this file (architecture.test.ts reads
 * these lines, as a package's `exports` map):
 * @entry secret-answers.ts what the secrets routes answer, for them and the API description
 * @entry secret-wiring.ts the whole secrets service as the secrets, rotation and AWS API functions build it (see below)
 * @entry purge-wiring.ts the purger's service over its store (functions/secret-purger), kept out of this file: see below
 */
export type { SecretService, SecretMetadata, SecretValue, WriteAnswer } from './secret-service.ts';
export { SECRET_PATH } from './secret-reveals.ts';
export { InRecoveryWindowError, NoValueError, SecretExistsError, VersionIdExistsError } from './secret-record.ts';
export type { DeletedSecretService } from './deleted-secret-service.ts';
export type { DeletedSecret, SecretRecord } from './secret-record.ts';
export { errorName, revealStore, secretRevealsOf, type SecretReveals } from './reveal-wiring.ts';
export { hasValue, secretPath } from './secret-record.ts';
export {
  arnSuffix,
  derivedVersionId,
  secretArn,
  versionIdOf,
  versionIdsToStages,
  versionOfDerivedId,
  versionOfVersionId,
  type AwsPlace,
} from './secret-names.ts';
export {
  AWSCURRENT,
  AWSPENDING,
  AWSPREVIOUS,
  checkStageOn,
  checkStages,
  labelsOf,
  latestVersionOf,
  StageRuleError,
  stagesByVersion,
  stagesOf,
} from './secret-labels.ts';
/** What the rotation feature (shared/rotation/) asks of secrets: the policy, the head, the AWSPENDING version. */
export type { SecretsForRotation } from './secrets-for-rotation.ts';
export type { PendingOutcome } from './pending-versions.ts';
export type { SecretRotationView } from './secret-service.ts';
/** A secret's own audit metadata (its key, project and environment), which a rotation's entries carry too. */
export { metadataOf } from './secret-reveals.ts';
/**
 * The end of recovery windows: the purger's service (functions/secret-purger builds it through purge-wiring.ts). Its
 * store, purge-store.ts, is not exported here: deleted-secret-store.ts loads it in the AWS API's lazy chunk, and a
 * static path to it through this file would put it in that function's cold start.
 */
export { makePurgeService, PURGE_GRACE_MS, type PurgeRun, type PurgeService, type PurgeServiceDeps } from './purge-service.ts';
/**
 * The stores, for a service that asks for some of their methods, and the factories of those a reveal reads (what the
 * AWS API's cold start already holds). The others' factories, and the services, are built through secret-wiring.ts
 * and purge-wiring.ts, not through here: this file is in the AWS API's cold start, which must not hold what it loads
 * with its later operations (esbuild places a module by static reachability, used or not: exporting secret-wiring.ts
 * here measured +38 KB at that cold start), and the whole service's wiring reads rotation's index.ts, which reads
 * this file (an import cycle).
 */
export { makeSecretStore, type SecretStore } from './secret-store.ts';
/**
 * The types of a version write and a recoverable delete prepared without sending them, for a change request's merge
 * (its function builds them through secret-wiring.ts: their code is not in the AWS API's cold start, which this file is).
 */
export type { PreparedVersionWrite, VersionWritePreparer } from './secret-version-writes.ts';
export type { DeletePreparer } from './secret-delete-items.ts';
export { makeSecretMetadataStore, type SecretMetadataStore } from './secret-metadata-store.ts';
export { makeRevealLimiter, type RevealLimiter } from './reveal-limit-store.ts';
export type { DeletedSecretStore } from './deleted-secret-store.ts';
export type { EnvironmentSearchStore } from './environment-search-store.ts';
export type { EnvironmentValueStore } from './environment-value-store.ts';
export type { PurgeStore } from './purge-store.ts';
