import type { Destination } from '../sync-records.ts';

/**
 * What every destination of a sync does (decisions.md v1.4, "Syncs"), one module each behind this interface: the
 * worker hands it resolved values and the keys to remove, and never learns how a platform stores them.
 */

/** One value to push: the environment's key and its resolved current value (text; binary values are base64). */
export interface PushedValue {
  key: string;
  value: string;
}

export interface SyncDestination {
  /**
   * Whether every push must carry every value of the sync (Secrets Manager's `json` mode writes one secret of all
   * keys): the worker then pushes the whole environment instead of the changed keys.
   */
  readonly wholeEnvironment: boolean;
  /** Writes these values at the destination, overwriting what is there. Throws a DestinationError when it cannot. */
  put(values: readonly PushedValue[]): Promise<void>;
  /** Deletes these keys (ones the sync wrote that left the environment); a key already gone is no error. */
  remove(keys: readonly string[]): Promise<void>;
}

/**
 * A destination's refusal or failure, with a message fit for the sync's `lastError` (the platform's status and
 * error code, never a value, a token or a signature).
 */
export class DestinationError extends Error {
  override readonly name = 'DestinationError';
}

/** What a destination needs besides its configuration. */
export interface DestinationContext {
  workspaceId: string;
  /** The sync pushing (an assumed role's session is named after it). */
  syncId: string;
  /** GitHub's token, unsealed for this push only. */
  token?: string;
  /** Local stack: one endpoint for SSM, Secrets Manager and STS (`SYNC_AWS_ENDPOINT`) and the keys it signs with. */
  awsEndpoint?: { url: string; accessKeyId: string; secretAccessKey: string };
  /** Whether a destination without `roleArn` may write into the stack's own account (`syncOwnAccount`). */
  ownAccount: boolean;
  /** The role ARN patterns a sync may assume (`syncRoleArns`, `${workspaceId}` replaced). */
  roleArns: readonly string[];
  /** The webhooks' SSRF guard's private ranges let through (`WEBHOOK_ALLOW_PRIVATE_CIDRS`). */
  allowPrivateCidrs: string;
}

/** Makes the destination of a sync's configuration (destinations/index.ts). */
export type DestinationFactory = (destination: Destination, context: DestinationContext) => Promise<SyncDestination>;
