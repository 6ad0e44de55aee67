/**
 * Every partition and sort key of the single table is built here (the index keys in index-keys.ts, re-exported
 * here), and nowhere else. The README's "Single-table design" section lists the same items and patterns.
 */
import type { ItemKey } from '../prefetch.ts';
import type { QueryPattern } from './query.ts';
import { DUE_SHARDS } from './index-keys.ts';

export { FAILED_DELIVERY_INDEX, gsi1, gsi2, gsi3, gsi4 } from './index-keys.ts';
export { ENTITY } from './entities.ts';

const ws = (workspaceId: string) => `WS#${workspaceId}`;

export const keys = {
  workspace: (workspaceId: string): ItemKey => ({ PK: ws(workspaceId), SK: '#META' }),
  apiKey: (workspaceId: string, keyId: string): ItemKey => ({ PK: ws(workspaceId), SK: `APIKEY#${keyId}` }),
  /** An access key: a machine identity and the record of its one token. */
  accessKey: (workspaceId: string, accessKeyId: string): ItemKey => ({ PK: ws(workspaceId), SK: `AK#${accessKeyId}` }),
  /** An access key's workspace, by the key's id alone: a login names only the `ak_` id (written with the key). */
  accessKeyById: (accessKeyId: string): ItemKey => ({ PK: `AKID#${accessKeyId}`, SK: '#AK' }),
  /** A key's live login token (its hash) by expiry: revoke and PATCH find them with one consistent Query (TTL). */
  loginToken: (workspaceId: string, accessKeyId: string, expiresAt: string, tokenHash: string): ItemKey => ({
    PK: `LOGINS#${workspaceId}#${accessKeyId}`,
    SK: `${expiresAt}#${tokenHash}`,
  }),
  /** Successful logins of an access key counted per minute (fixed window), beside its reveal counters. */
  loginCounter: (workspaceId: string, accessKeyId: string, minute: number): ItemKey => ({
    PK: `RATE#${workspaceId}#${accessKeyId}`,
    SK: `LOGIN#${minute}`,
  }),
  /** Refused logins of a key from one source address per minute, beside its login counter (read with its record). */
  loginRefusalCounter: (workspaceId: string, accessKeyId: string, source: string, minute: number): ItemKey => ({
    PK: `RATE#${workspaceId}#${accessKeyId}`,
    SK: `LOGINREFUSED#${minute}#${source}`,
  }),
  /** Looked up by the SHA-256 of the presented token, so the token itself is never stored. */
  token: (tokenHash: string): ItemKey => ({ PK: `TOKEN#${tokenHash}`, SK: '#TOKEN' }),
  project: (workspaceId: string, projectId: string): ItemKey => ({ PK: ws(workspaceId), SK: `PROJ#${projectId}` }),
  projectSlug: (workspaceId: string, slug: string): ItemKey => ({ PK: ws(workspaceId), SK: `PSLUG#${slug}` }),
  environment: (workspaceId: string, environmentId: string): ItemKey => ({ PK: ws(workspaceId), SK: `ENV#${environmentId}` }),
  projectEnvironment: (workspaceId: string, projectId: string, environmentId: string): ItemKey => ({
    PK: ws(workspaceId),
    SK: `PENV#${projectId}#${environmentId}`,
  }),
  environmentSlug: (workspaceId: string, projectId: string, slug: string): ItemKey => ({
    PK: ws(workspaceId),
    SK: `ESLUG#${projectId}#${slug}`,
  }),
  /** A secret by id: its head, holding the current version and its sealed value (one read reveals it). */
  secretHead: (workspaceId: string, secretId: string): ItemKey => ({ PK: ws(workspaceId), SK: `SEC#${secretId}` }),
  /** The same head again under its path `<projectSlug>/<envSlug>/<key>` (slugs and keys never change). */
  secretPath: (workspaceId: string, path: string): ItemKey => ({ PK: ws(workspaceId), SK: `PATH#${path}` }),
  /** A secret in its environment, without the value: claims the key, lists by key, and feeds search (GSI1). */
  environmentSecret: (workspaceId: string, environmentId: string, key: string): ItemKey => ({
    PK: ws(workspaceId),
    SK: `EKEY#${environmentId}#${key}`,
  }),
  /**
   * A secret's current sealed value in its environment, as loads read it until v1.4's change requests (they read the
   * path items since): no longer written; a purge removes one left from then.
   */
  environmentValue: (workspaceId: string, environmentId: string, key: string): ItemKey => ({
    PK: ws(workspaceId),
    SK: `EVAL#${environmentId}#${key}`,
  }),
  /**
   * An edge of the reverse index of secret references: secret `secretId`'s current value references `targetPath`.
   * Keyed by the target's path (a reference may name a secret not made yet; paths never change), in the workspace
   * partition, whose grants every function that writes or reads secrets already has (a path holds no `#`).
   */
  referencedBy: (workspaceId: string, targetPath: string, secretId: string): ItemKey => ({
    PK: ws(workspaceId),
    SK: `REFBY#${targetPath}#SEC#${secretId}`,
  }),
  /** One immutable version; versions of a secret share a partition so a delete can find them all. */
  secretVersion: (workspaceId: string, secretId: string, version: number): ItemKey => ({
    PK: `${ws(workspaceId)}#SEC#${secretId}`,
    SK: `V#${String(version).padStart(10, '0')}`,
  }),
  /** A VersionId an AWS write's `ClientRequestToken` named, beside the versions: claims it, and names its version. */
  secretVersionId: (workspaceId: string, secretId: string, versionId: string): ItemKey => ({
    PK: `${ws(workspaceId)}#SEC#${secretId}`,
    SK: `VID#${versionId}`,
  }),
  /** A secret's rotation: its configuration, when it last and next rotates, and the lease of a running rotation. */
  secretRotation: (workspaceId: string, secretId: string): ItemKey => ({ PK: `${ws(workspaceId)}#SEC#${secretId}`, SK: 'ROT' }),
  /** Before v1.4 (since: a marker at the path item's key), the secret last deleted at a path; read until its TTL. */
  deletedSecretPath: (workspaceId: string, path: string): ItemKey => ({ PK: ws(workspaceId), SK: `DPATH#${path}` }),
  /** A deleted secret in its environment's list of them, newest deletion first (expires with TTL at its purgeAt). */
  deletedSecret: (workspaceId: string, environmentId: string, deletedAt: string, secretId: string): ItemKey => ({
    PK: ws(workspaceId),
    SK: `DEL#${environmentId}#${deletedAt}#${secretId}`,
  }),
  /** Before v1.4 (since: at the head's key), a deleted secret's record; one from then is still read, restored, purged. */
  secretPurge: (workspaceId: string, secretId: string): ItemKey => ({ PK: `${ws(workspaceId)}#SEC#${secretId}`, SK: '#PURGE' }),
  /** Reveals counted per credential and minute (fixed window). */
  revealCounter: (workspaceId: string, credentialId: string, minute: number): ItemKey => ({
    PK: `RATE#${workspaceId}#${credentialId}`,
    SK: `REVEAL#${minute}`,
  }),
  /** Reveals counted for the whole workspace and minute: the ceiling over all its credentials. */
  workspaceRevealCounter: (workspaceId: string, minute: number): ItemKey => ({ PK: `RATE#${workspaceId}`, SK: `REVEAL#${minute}` }),
  audit: (workspaceId: string, auditId: string): ItemKey => ({ PK: `${ws(workspaceId)}#AUDIT`, SK: auditId }),
  /** A period's signed audit digest, beside the entries: `DIGEST#` sorts before `aud_`, so the log never reads one. */
  auditDigest: (workspaceId: string, hourStart: string): ItemKey => ({ PK: `${ws(workspaceId)}#AUDIT`, SK: `DIGEST#${hourStart}` }),
  /**
   * Denied attempts of one credential at one action on one secret (`subject`), counted between their `access.denied`
   * audit entries, so a loop of denied calls writes at most one entry a minute (expires with TTL a day after the last).
   */
  deniedAttempts: (workspaceId: string, credentialId: string, subject: string): ItemKey => ({
    PK: `DENIED#${workspaceId}#${credentialId}`,
    SK: subject,
  }),
  webhookEndpoint: (workspaceId: string, endpointId: string): ItemKey => ({ PK: ws(workspaceId), SK: `WHE#${endpointId}` }),
  /** A change request: its changes (proposed values sealed), reviews and status; on GSI1 by its environment. */
  changeRequest: (workspaceId: string, changeRequestId: string): ItemKey => ({ PK: ws(workspaceId), SK: `CR#${changeRequestId}` }),
  /**
   * A sync (decisions.md v1.4, "Syncs"): its destination (a token sealed), pattern, status and the worker's lease.
   * All of a workspace's syncs are one Query (at most 100): what the stream fan-out reads to route a change.
   */
  sync: (workspaceId: string, syncId: string): ItemKey => ({ PK: ws(workspaceId), SK: `SYNC#${syncId}` }),
  /** The keys a sync wrote at its destination (for `prune`): apart, so reading the sync never reads them. */
  syncWritten: (workspaceId: string, syncId: string): ItemKey => ({ PK: ws(workspaceId), SK: `SYNCW#${syncId}` }),
  /** How many syncs a workspace has: the 100-sync cap is a conditional counter, like the endpoints'. */
  syncCount: (workspaceId: string): ItemKey => ({ PK: ws(workspaceId), SK: '#SYNC_COUNT' }),
  /** An audit stream (decisions.md v1.4, credentials sealed), and how many a workspace has (the 10-stream cap's counter). */
  auditStream: (workspaceId: string, streamId: string): ItemKey => ({ PK: ws(workspaceId), SK: `AS#${streamId}` }),
  auditStreamCount: (workspaceId: string): ItemKey => ({ PK: ws(workspaceId), SK: '#AS_COUNT' }),
  /** How many unrevoked access keys a workspace has: the 100-key cap is a conditional counter, like the endpoints'. */
  accessKeyCount: (workspaceId: string): ItemKey => ({ PK: ws(workspaceId), SK: '#AK_COUNT' }),
  /** How many endpoints a workspace has: the 20-endpoint cap is a conditional counter, safe under concurrency. */
  webhookEndpointCount: (workspaceId: string): ItemKey => ({ PK: ws(workspaceId), SK: '#WHE_COUNT' }),
  delivery: (workspaceId: string, deliveryId: string): ItemKey => ({ PK: `${ws(workspaceId)}#WHD`, SK: deliveryId }),
  /**
   * A recovery of an endpoint's failed deliveries (`POST /webhooks/{id}/recover`), named by its audit entry's id: the
   * span, how far it got and how many it queued, beside the deliveries (expires with TTL after their retention).
   */
  deliveryRecovery: (workspaceId: string, recoveryId: string): ItemKey => ({ PK: `${ws(workspaceId)}#WHD`, SK: `RECOVERY#${recoveryId}` }),
  /**
   * One endpoint's delivery statistics for one hour (`2026-11-26T09`) of its deliveries' creation, beside the
   * deliveries (expires with TTL two days after them). `whd_` lists never reach it.
   */
  deliveryStats: (workspaceId: string, endpointId: string, hour: string): ItemKey => ({
    PK: `${ws(workspaceId)}#WHD`,
    SK: `STAT#${endpointId}#${hour}`,
  }),
  /**
   * One endpoint's delivery statistics for one two-minute bucket (`2026-11-26T09:02`) of its deliveries' creation:
   * what a statistics read counts at the edges of its span (expires with TTL like the hours).
   */
  deliveryStatsBucket: (workspaceId: string, endpointId: string, bucket: string): ItemKey => ({
    PK: `${ws(workspaceId)}#WHD`,
    SK: `STATB#${endpointId}#${bucket}`,
  }),
  /** How far the workspace's delivery statistics are rolled up from the deliveries (one item per workspace). */
  deliveryStatsWatermark: (workspaceId: string): ItemKey => ({ PK: `${ws(workspaceId)}#WHD`, SK: 'STATW' }),
  cursorSigningKey: (): ItemKey => ({ PK: 'SYSTEM', SK: 'CURSOR_KEY' }),
  /**
   * The service MAC key, sealed under the KMS key: made by the admin CLI (operator credentials), only read by the
   * functions. A partition of its own, so IAM can let the functions read it and write none of it.
   */
  macKey: (): ItemKey => ({ PK: 'SYSTEM#MAC_KEY', SK: '#META' }),
  /**
   * A request made with an Idempotency-Key, scoped to the credential in its workspace (kept 24 hours by TTL), under
   * the keyed MAC of the key (`record`), never the key itself.
   */
  idempotency: (workspaceId: string, credentialId: string, record: string): ItemKey => ({
    PK: `IDEM#${workspaceId}#${credentialId}`,
    SK: `MAC#${record}`,
  }),
  /**
   * A record written before keyed digests, under the key itself: still read (never written) so that a retry spanning
   * the upgrade replays. Drop once every deployment has run keyed records for 24 hours.
   */
  legacyIdempotency: (workspaceId: string, credentialId: string, key: string): ItemKey => ({
    PK: `IDEM#${workspaceId}#${credentialId}`,
    SK: `KEY#${key}`,
  }),
};

/** The Query access patterns: partition key value, and a sort-key prefix or an index. Every Query reads one. */
export const patterns = {
  workspaceApiKeys: (workspaceId: string) => ({ pk: ws(workspaceId), skPrefix: 'APIKEY#' }),
  accessKeysByWorkspace: (workspaceId: string) => ({ pk: ws(workspaceId), skPrefix: 'AK#' }),
  /** An access key's login tokens, by expiry (read from now on: the live ones). */
  loginTokensOfAccessKey: (workspaceId: string, accessKeyId: string) => ({ pk: `LOGINS#${workspaceId}#${accessKeyId}` }),
  projectsByWorkspace: (workspaceId: string) => ({ pk: ws(workspaceId), skPrefix: 'PROJ#' }),
  projectSlugsStartingWith: (workspaceId: string, base: string) => ({ pk: ws(workspaceId), skPrefix: `PSLUG#${base}` }),
  environmentsByProject: (workspaceId: string, projectId: string) => ({ pk: ws(workspaceId), skPrefix: `PENV#${projectId}#` }),
  environmentSlugsStartingWith: (workspaceId: string, projectId: string, base: string) => ({
    pk: ws(workspaceId),
    skPrefix: `ESLUG#${projectId}#${base}`,
  }),
  auditByWorkspace: (workspaceId: string) => ({ pk: `${ws(workspaceId)}#AUDIT`, skPrefix: 'aud_' }),
  auditDigestsByWorkspace: (workspaceId: string) => ({ pk: `${ws(workspaceId)}#AUDIT`, skPrefix: 'DIGEST#' }),
  secretsByEnvironment: (workspaceId: string, environmentId: string) => ({ pk: ws(workspaceId), skPrefix: `EKEY#${environmentId}#` }),
  /** An environment's path items (the heads' copies under their paths, which hold the current values), by key (A→Z). */
  secretPathsOfEnvironment: (workspaceId: string, projectSlug: string, envSlug: string) => ({
    pk: ws(workspaceId),
    skPrefix: `PATH#${projectSlug}/${envSlug}/`,
  }),
  /** The secrets whose current value references `targetPath` (edges, confirmed against each head by the reader). */
  referencesTo: (workspaceId: string, targetPath: string) => ({ pk: ws(workspaceId), skPrefix: `REFBY#${targetPath}#SEC#` }),
  /** GSI4: an environment's secrets, newest first (keys and `key` only: read the records from the table). */
  secretsOfEnvironment: (workspaceId: string, environmentId: string) => ({
    pk: `ESEC#${workspaceId}#${environmentId}`,
    indexName: 'GSI4' as const,
  }),
  /** GSI1: the workspace's secrets, newest first. */
  secretsByWorkspace: (workspaceId: string) => ({ pk: `SECRETS#${workspaceId}`, indexName: 'GSI1' as const }),
  /** GSI1: the workspace's deleted secrets that may still be restored (their records), by id as `secretsByWorkspace`. */
  deletedSecretsByWorkspace: (workspaceId: string) => ({ pk: `DELETED#${workspaceId}`, indexName: 'GSI1' as const }),
  webhookEndpointsByWorkspace: (workspaceId: string) => ({ pk: ws(workspaceId), skPrefix: 'WHE#' }),
  /** Every sync of a workspace (`SYNC#`; the written keys' items are `SYNCW#`, outside the prefix). */
  syncsByWorkspace: (workspaceId: string) => ({ pk: ws(workspaceId), skPrefix: 'SYNC#' }),
  auditStreamsByWorkspace: (workspaceId: string) => ({ pk: ws(workspaceId), skPrefix: 'AS#' }),
  /** GSI1: an environment's change requests, newest first (every status: a list by status filters them). */
  changeRequestsByEnvironment: (workspaceId: string, environmentId: string) => ({
    pk: `CRS#${workspaceId}#${environmentId}`,
    indexName: 'GSI1' as const,
  }),
  deliveriesByWorkspace: (workspaceId: string) => ({ pk: `${ws(workspaceId)}#WHD`, skPrefix: 'whd_' }),
  /** One endpoint's hourly delivery statistics, oldest hour first. */
  deliveryStatsOfEndpoint: (workspaceId: string, endpointId: string) => ({ pk: `${ws(workspaceId)}#WHD`, skPrefix: `STAT#${endpointId}#` }),
  /** One endpoint's two-minute delivery statistics buckets, oldest first. */
  deliveryStatsBucketsOfEndpoint: (workspaceId: string, endpointId: string) => ({
    pk: `${ws(workspaceId)}#WHD`,
    skPrefix: `STATB#${endpointId}#`,
  }),
  /** GSI3: one endpoint's deliveries, newest first (keys and eventType only: read the records from the table). */
  deliveriesByEndpoint: (endpointId: string) => ({ pk: `WHE#${endpointId}`, indexName: 'GSI3' as const }),
  /**
   * GSI1: one endpoint's deliveries made before the delivery log moved to GSI3, which carry the same keys as
   * `GSI1PK`/`GSI1SK`. Read only where missing one would lose a delivery (pausing, switching off, deleting an
   * endpoint); drop it once such deliveries are past their 30-day retention everywhere.
   */
  legacyDeliveriesByEndpoint: (endpointId: string) => ({ pk: `WHE#${endpointId}`, indexName: 'GSI1' as const }),
  /** GSI4: an endpoint's failed deliveries, oldest first (keys only). */
  failedDeliveriesOfEndpoint: (endpointId: string) => ({ pk: endpointId, indexName: 'GSI4' as const }),
  /** GSI2: recoveries of failed deliveries still running, by when they last moved (the sweeper restarts a stalled one). */
  runningRecoveries: () => ({ pk: 'RECOVERY', indexName: 'GSI2' as const }),
  /** GSI2: purges left unfinished (a delete interrupted between its two steps). */
  pendingPurges: () => ({ pk: 'PURGE', indexName: 'GSI2' as const }),
  /** GSI2: pending deliveries by due time, one pattern per shard (read them all to see every due delivery). */
  dueDeliveryShards: () => Array.from({ length: DUE_SHARDS }, (_, shard) => ({ pk: `DUE#${shard}`, indexName: 'GSI2' as const })),
  /** An environment's deleted secrets, by deletion time (read newest first). */
  deletedSecretsByEnvironment: (workspaceId: string, environmentId: string) => ({ pk: ws(workspaceId), skPrefix: `DEL#${environmentId}#` }),
  /** Every environment's deleted secrets: where indexing the records of deletes made before `gsi1.deletedSecret` looks. */
  deletedSecretsOfWorkspace: (workspaceId: string) => ({ pk: ws(workspaceId), skPrefix: 'DEL#' }),
  /** A deleted secret's versions (`V#…`; a record from before v1.4, `#PURGE`, sorts apart from them). */
  secretVersions: (workspaceId: string, secretId: string) => ({ pk: `${ws(workspaceId)}#SEC#${secretId}`, skPrefix: 'V#' }),
  /** Everything in a secret's own partition (versions, VersionId items, the deleted record): what a purge removes. */
  secretPartition: (workspaceId: string, secretId: string) => ({ pk: `${ws(workspaceId)}#SEC#${secretId}` }),
  /** GSI1: every allowlisted workspace (admin CLI only). */
  allowlistedWorkspaces: () => ({ pk: 'ALLOWLIST', indexName: 'GSI1' as const }),
  /** GSI2: every workspace, allowlisted or not, for the audit digester (one made before `gsi2.workspace` needs its keys set). */
  allWorkspaces: () => ({ pk: 'WORKSPACES', indexName: 'GSI2' as const }),
} satisfies Record<string, (...args: never[]) => QueryPattern | QueryPattern[]>;
