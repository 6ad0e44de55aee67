import type { SealedValue } from '../platform/crypto/envelope.ts';

/**
 * A sync as the service keeps it (decisions.md v1.4, "Syncs"): which environment's values it pushes, where, and how
 * it stands. One item per sync (sync-store.ts); a destination's token is sealed under the service's KMS key and
 * never answered; what the sync wrote at the destination is tracked for `prune`.
 */

export const DESTINATION_TYPES = ['github-actions', 'aws-ssm', 'aws-secrets-manager'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** GitHub Actions: repository (or repository environment) secrets, each sealed with the repository's public key. */
export interface GithubActionsDestination {
  type: 'github-actions';
  /** `owner/repo`. */
  repository: string;
  /** A repository environment's secrets instead of the repository's. */
  environment?: string;
  /** GitHub's API root; default `https://api.github.com` (GitHub Enterprise Server, or a local stand-in). */
  apiUrl?: string;
}

/** AWS Systems Manager Parameter Store: SecureString parameters `<pathPrefix><KEY>`, overwritten. */
export interface AwsSsmDestination {
  type: 'aws-ssm';
  region: string;
  pathPrefix: string;
  roleArn?: string;
  externalId?: string;
  kmsKeyId?: string;
}

/** AWS Secrets Manager: one secret per key `<namePrefix><KEY>`, or (`json`) one secret `namePrefix` of every key. */
export interface AwsSecretsManagerDestination {
  type: 'aws-secrets-manager';
  region: string;
  namePrefix: string;
  roleArn?: string;
  externalId?: string;
  kmsKeyId?: string;
  mode?: 'secret-per-key' | 'json';
}

/** A destination as answered and stored: never a credential (GitHub's token is sealed beside it). */
export type Destination = GithubActionsDestination | AwsSsmDestination | AwsSecretsManagerDestination;

/** The statuses of a sync (`paused` is set by PATCH; the others by its pushes). */
export const SYNC_STATUSES = ['pending', 'ok', 'failing', 'paused'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export interface SyncRecord {
  id: string;
  /** The workspace's `acc_` account (the principal's `accountId` at creation): what the sync's audit entries and events name. */
  accountId: string;
  environmentId: string;
  projectId: string;
  projectSlug: string;
  envSlug: string;
  destination: Destination;
  /** The GitHub token, sealed under the service's key with the context {workspaceId, syncId}; absent for AWS. */
  sealedToken?: SealedValue;
  /** A key pattern (the glob of permission rules' `keys`); `**` is every key. */
  keys: string;
  prune: boolean;
  status: SyncStatus;
  lastSyncedAt: string | null;
  lastError: string | null;
  /** When the current run of failures began (null while it succeeds): 24 hours of them make the sync `failing`. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
  /** Counts the item's writes: every update holds only while the item is as it was read. */
  revision: number;
}
