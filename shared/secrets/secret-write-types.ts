import type { Prefetched } from '../platform/prefetch.ts';
import type { SecretRecord, ValueEncoding } from './secret-record.ts';

/** What a write of a secret takes and answers (secret-writer.ts and the modules beside it). */

/** What the head says of a secret besides its value (the AWS API's description and tags); null removes one. */
export interface SecretMetadata {
  description?: string | null;
  tags?: Record<string, string> | null;
}

/** How a write is made: its conditions, VersionId, metadata and labels. */
export interface WriteOptions {
  /** The version the write expects to follow (0 = the key must not exist); a different one is CONFLICT. */
  ifMatch?: number | undefined;
  prefetched?: Prefetched | undefined;
  /** The new version's VersionId (an AWS write's `ClientRequestToken`); a retry with it makes no new version. */
  versionId?: string | undefined;
  /** The secret the write must add to (NOT_FOUND when it is gone: never a new secret of its key). */
  secretId?: string | undefined;
  /** The description and tags the secret gets with this version (the AWS API's CreateSecret and UpdateSecret). */
  metadata?: SecretMetadata | undefined;
  /** The staging labels of the new version (PutSecretValue's VersionStages); default AWSCURRENT alone. */
  stages?: readonly string[] | undefined;
  /**
   * The key must not exist at all, not even without a value (the AWS API's CreateSecret): SecretExistsError. REST's
   * `If-Match: 0` is the version the write expects, so it matches a secret that has no value yet.
   */
  mustCreate?: boolean | undefined;
  /** A create that holds only while no secret deleted at its path is in its recovery window (the AWS API's rule). */
  notInRecoveryWindow?: boolean | undefined;
}

/** A value as a write takes it: text, or a binary value as its base64 text with `encoding: 'base64'`. */
export interface SecretValue {
  value: string;
  encoding?: ValueEncoding | undefined;
  /** The name the caller gave the value (the AWS API's `SecretString`), which a refusal of it names; default `value`. */
  field?: string | undefined;
}

/** What a write writes: a key's next value. */
export interface WriteInput extends SecretValue {
  key: string;
}

/** What a write answers: the version it made (or, retried with its VersionId, made before) and the secret after it. */
export interface WriteAnswer {
  id: string;
  key: string;
  version: number;
  versionId: string | null;
  secret: SecretRecord;
  /** A retry of an earlier write with the same VersionId and value: nothing was written. */
  repeated?: true;
}
