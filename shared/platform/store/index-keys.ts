/**
 * The index keys items carry to appear in an index pattern (sparse: absent means "not in it"): part of the keys
 * module, which re-exports them (keys.ts), in a file of their own only for its length.
 */

/** GSI1 keys. */
export const gsi1 = {
  allowlistedWorkspace: (workspaceId: string) => ({ GSI1PK: 'ALLOWLIST', GSI1SK: workspaceId }),
  /** Every secret of a workspace, newest first, for search. */
  workspaceSecret: (workspaceId: string, secretId: string) => ({ GSI1PK: `SECRETS#${workspaceId}`, GSI1SK: secretId }),
  /**
   * A deleted secret's record while it may be restored (put only with a recovery window), under its id as the live
   * secrets are: ListSecrets with IncludePlannedDeletion reads both partitions from one position.
   */
  deletedSecret: (workspaceId: string, secretId: string) => ({ GSI1PK: `DELETED#${workspaceId}`, GSI1SK: secretId }),
  /** A change request in its environment's list, newest first (its status is an attribute: a status change moves nothing). */
  changeRequest: (workspaceId: string, environmentId: string, changeRequestId: string) => ({
    GSI1PK: `CRS#${workspaceId}#${environmentId}`,
    GSI1SK: changeRequestId,
  }),
};

/** GSI4 keys: an environment's secrets, newest first (on the environment's key item; keys and `key` only). */
export const gsi4 = {
  environmentSecret: (workspaceId: string, environmentId: string, secretId: string) => ({
    GSI4PK: `ESEC#${workspaceId}#${environmentId}`,
    GSI4SK: secretId,
  }),
};

/** GSI3 keys: the endpoint delivery log, which copies only keys and `eventType` (see TABLE_DEFINITION). */
export const gsi3 = {
  /** Every delivery of an endpoint, newest first. */
  endpointDelivery: (endpointId: string, deliveryId: string) => ({ GSI3PK: `WHE#${endpointId}`, GSI3SK: deliveryId }),
};

/**
 * GSI4 keys of a failed delivery: its endpoint's failed list, oldest first, what a recovery counts and pages through
 * (sparse: a delivery is in it only while `failed`). The keys are the delivery's own `endpointId` and `id`, so that
 * every update that fails a delivery can copy them in (`FAILED_DELIVERY_INDEX.set`) without reading it first.
 */
export const FAILED_DELIVERY_INDEX = {
  keys: (endpointId: string, deliveryId: string) => ({ GSI4PK: endpointId, GSI4SK: deliveryId }),
  /** The SET clause that puts a delivery item into the list, from its own attributes. */
  set: 'GSI4PK = endpointId, GSI4SK = id',
  /** The REMOVE clause that takes it out. */
  remove: 'GSI4PK, GSI4SK',
} as const;

/** Pending deliveries are spread over this many GSI2 partitions, so no single one runs hot. */
export const DUE_SHARDS = 4;

/** GSI2 keys: every workspace, pending deliveries by due time, and unfinished secret purges. */
export const gsi2 = {
  /** Every workspace (sparse only in that older items lack it): what the audit digester walks, never a Scan. */
  workspace: (workspaceId: string) => ({ GSI2PK: 'WORKSPACES', GSI2SK: workspaceId }),
  dueDelivery: (deliveryId: string, nextRetryAt: string) => ({
    GSI2PK: `DUE#${[...deliveryId].reduce((sum, c) => sum + c.charCodeAt(0), 0) % DUE_SHARDS}`,
    GSI2SK: `${nextRetryAt}#${deliveryId}`,
  }),
  /** A recovery still running, by when it last moved on (its `updatedAt`). */
  runningRecovery: (workspaceId: string, recoveryId: string, updatedAt: string) => ({
    GSI2PK: 'RECOVERY',
    GSI2SK: `${updatedAt}#${workspaceId}#${recoveryId}`,
  }),
  /** A deleted secret, by when its versions are to be purged (its purgeAt; before recovery windows, its deletion). */
  purge: (workspaceId: string, secretId: string, deletedAt: string) => ({
    GSI2PK: 'PURGE',
    GSI2SK: `${deletedAt}#${workspaceId}#${secretId}`,
  }),
};
