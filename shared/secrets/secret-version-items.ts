import { type AuditEntry, auditPut } from '../audit/index.ts';
import { iso } from '../platform/clock.ts';
import { secretContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { newId } from '../platform/ids.ts';
import type { TransactItem } from '../platform/store/conditional.ts';
import { ENTITY, keys } from '../platform/store/keys.ts';
import { toStored } from '../platform/store/sealed.ts';
import type { Db } from '../platform/store/send.ts';
import { environmentValuePut } from './environment-value-items.ts';
import type { EnvironmentRef } from './secret-guard.ts';
import { AWSCURRENT, keepLabelled, labelsAfterWrite, latestVersionOf, storedLabels } from './secret-labels.ts';
import type { SealedValue } from '../platform/crypto/envelope.ts';
import { gsi1, gsi4 } from '../platform/store/keys.ts';
import { revisionAfter, secretPath, unchangedSince, type SecretRecord, type StoredSecret, type ValueEncoding } from './secret-record.ts';
import type { WriteInput } from './secret-write-types.ts';

/**
 * One version write as transaction items, built but not sent: what `writeSecretVersion` commits on its own, and what
 * a change request's merge commits with the other keys' writes in one transaction (shared/change-requests/). Both
 * build the same items here, so a merged version is stored exactly as any other write stores it.
 */

/** The immutable item of a version a write makes (`null` for a change of labels alone). */
export interface NewVersion {
  /** Its number; default the new head's `currentVersion`. */
  number?: number;
  /** Its sealed value; default the new head's (the current one's). */
  sealed?: SealedValue;
  createdAt?: string;
  createdBy: string;
  rolledBackFrom?: number | undefined;
  versionId?: string | undefined;
  /** False when its VersionId was claimed before (a rotation's reserved version being filled). */
  claim?: boolean;
  /** `base64` for a binary value; default the new head's encoding. */
  encoding?: ValueEncoding | undefined;
}

/**
 * What a secret's current state is stored as: the head (under its id and its path), the environment's key item (in
 * the search indexes) and the sealed value. A write puts them; a restore puts them back.
 */
export function secretItems(workspaceId: string, secret: StoredSecret) {
  const { sealed, ...record } = secret;
  const stored = sealed === undefined ? undefined : toStored(sealed);
  const listed = {
    ...record,
    workspaceId,
    keyLower: record.key.toLowerCase(),
    ...gsi1.workspaceSecret(workspaceId, record.id),
    ...gsi4.environmentSecret(workspaceId, record.environmentId, record.id),
  };
  return { stored, head: { ...record, workspaceId, ...(stored && { sealed: stored }) }, listed, path: secretPath(record) };
}

/** A version write's items, and where its conditional ones are (the key item's failed condition names the race). */
export interface VersionWriteItems {
  items: TransactItem[];
  /** The key item (environment secret): its condition holds only while the key is as the write read it. */
  keyItemAt: number;
  versionAt: number | undefined;
  claimAt: number | undefined;
}

/**
 * The labels part of the head after version `number` is written with `stages` (shared/secrets/secret-labels.ts):
 * its VersionId kept with those of the other labelled versions, a reserved version it fills no longer unfilled.
 */
export function labelledAfter(current: SecretRecord | undefined, number: number, stages: readonly string[], versionId: string | undefined) {
  const state = labelsAfterWrite(current, number, stages);
  const versionIds = keepLabelled({ ...current?.versionIds, ...(versionId !== undefined && { [String(number)]: versionId }) }, state);
  const unfilled = (current?.unfilled ?? []).filter((version) => version !== number && keepLabelled({ [version]: true }, state));
  const latestVersion = Math.max(latestVersionOf(current), number);
  return {
    currentVersion: state.currentVersion,
    // Stored with AWSCURRENT, so never empty: a head without labels reads as one written before them (secret-labels.ts).
    labels: storedLabels(state),
    ...(latestVersion > state.currentVersion && { latestVersion }),
    ...(unfilled.length > 0 && { unfilled }),
    ...(versionIds && { versionIds }),
  };
}

/**
 * The transaction items of a secret's new state (secret-store.ts, `writeSecretVersion`): the head under its id and
 * its path, the environment's key item, the new version's immutable item (if any), the environment's value item when
 * the current version moved, the audit entry, and the claim of the version's VersionId. A create needs the path and
 * key free; any other write holds only while the key is as `expected` was read.
 */
export function secretVersionItems(
  db: Db,
  workspaceId: string,
  secret: StoredSecret,
  expected: SecretRecord | undefined,
  version: NewVersion | null,
  audit: AuditEntry | undefined,
  reserve?: { versionId: string; number: number },
): VersionWriteItems {
  const { sealed, ...record } = secret;
  const { head, listed, path } = secretItems(workspaceId, secret);
  const write = (key: { PK: string; SK: string }, type: string, item: Record<string, unknown>) =>
    expected === undefined
      ? { Put: { TableName: db.tableName, Item: { ...key, type, ...item }, ConditionExpression: 'attribute_not_exists(PK)' } }
      : { Put: { TableName: db.tableName, Item: { ...key, type, ...item }, ...unchangedSince(expected) } };
  const keyItem = write(keys.environmentSecret(workspaceId, record.environmentId, record.key), ENTITY.environmentSecret, listed);
  // A lost race learns the key's current state from its failed condition (no read, nothing billed); when the
  // key is gone (no item) the writer reads again.
  Object.assign(keyItem.Put, { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
  const number = version?.number ?? record.currentVersion;
  const versionSealed = version?.sealed ?? sealed;
  if (version && !versionSealed) throw new Error('a version needs its sealed value');
  const encoding = version?.sealed ? version.encoding : record.encoding;
  const versionItem = version && {
    Put: {
      TableName: db.tableName,
      Item: {
        ...keys.secretVersion(workspaceId, record.id, number),
        type: ENTITY.secretVersion,
        secretId: record.id,
        version: number,
        sealed: toStored(versionSealed!),
        createdAt: version.createdAt ?? record.updatedAt,
        createdBy: version.createdBy,
        ...(version.rolledBackFrom !== undefined && { rolledBackFrom: version.rolledBackFrom }),
        ...(version.versionId !== undefined && { versionId: version.versionId }),
        ...(encoding && { encoding }),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
  // A VersionId named by the write is claimed with it: a retry with the same token fails here.
  const claim = version
    ? version.versionId !== undefined && version.claim !== false
      ? { versionId: version.versionId, number }
      : undefined
    : reserve;
  const items: TransactItem[] = [
    write(keys.secretHead(workspaceId, record.id), ENTITY.secretHead, head),
    write(keys.secretPath(workspaceId, path), ENTITY.secretPath, head),
    keyItem,
    ...(versionItem ? [versionItem] : []),
    // The environment's value item follows the current version only (a secret without a value has none).
    ...(record.currentVersion !== expected?.currentVersion && sealed
      ? [
          environmentValuePut(db, workspaceId, {
            id: record.id,
            key: record.key,
            version: record.currentVersion,
            environmentId: record.environmentId,
            sealed,
            ...(record.encoding && { encoding: record.encoding }),
          }),
        ]
      : []),
    ...(audit ? [auditPut(db, workspaceId, audit)] : []),
  ];
  if (claim)
    items.push({
      Put: {
        TableName: db.tableName,
        Item: { ...keys.secretVersionId(workspaceId, record.id, claim.versionId), type: ENTITY.secretVersionId, version: claim.number },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    });
  return { items, keyItemAt: 2, versionAt: versionItem ? 3 : undefined, claimAt: claim ? items.length - 1 : undefined };
}

/** What a write makes of the key's head: the record after version `number`, given what the write read (`current`). */
export function secretAfterWrite(
  current: SecretRecord | undefined,
  environment: EnvironmentRef,
  write: { input: WriteInput; number: number; stages: readonly string[]; versionId?: string | undefined; now: number },
  metadata?: { description?: string | null; tags?: Record<string, string> | null },
): SecretRecord {
  const { input, number, now } = write;
  const labelled = labelledAfter(current, number, write.stages, write.versionId);
  const becomesCurrent = labelled.currentVersion === number;
  const description = metadata?.description === undefined ? current?.description : metadata.description;
  // The head's encoding is its current version's.
  const encoding = becomesCurrent ? input.encoding : current?.encoding;
  const tags = metadata?.tags === undefined ? current?.tags : metadata.tags;
  return {
    id: current?.id ?? newId('secret', now),
    key: input.key,
    projectId: environment.projectId,
    projectSlug: environment.projectSlug,
    environmentId: environment.id,
    envSlug: environment.slug,
    createdAt: current?.createdAt ?? iso(now),
    // When the current version was written: a version that is not current leaves it.
    updatedAt: becomesCurrent || !current ? iso(now) : current.updatedAt,
    ...(description != null && { description }),
    ...(tags != null && { tags }),
    ...(current?.changedAt !== undefined && { changedAt: current.changedAt }),
    ...labelled,
    revision: revisionAfter(current),
    ...(encoding && { encoding }),
  };
}

/** A version write prepared for another feature's transaction: its items, and the version it makes. */
export interface PreparedVersionWrite extends VersionWriteItems {
  secretId: string;
  version: number;
}

/**
 * Prepares, without writing, the next current version of `input.key` after `current` (the key item as read; undefined
 * for a new key): the value sealed under the version's context, and the items a write stores, with its audit entry
 * (`secret.create` or `secret.rotate`, as `actor.audit` makes it: a merge's names its `changeRequestId`). The caller decided
 * the caller's access and commits the items in its own transaction; the key item's condition fails if the key moved.
 */
export async function prepareVersionWrite(
  deps: { db: Db; cipher: Cipher },
  actor: {
    workspaceId: string;
    actorSub: string;
    audit: (action: 'secret.create' | 'secret.rotate', secret: SecretRecord, version: number) => AuditEntry;
  },
  environment: EnvironmentRef,
  current: SecretRecord | undefined,
  input: WriteInput & { now: number },
): Promise<PreparedVersionWrite> {
  const ws = actor.workspaceId;
  const number = latestVersionOf(current) + 1;
  const record = secretAfterWrite(current, environment, { input, number, stages: [AWSCURRENT], now: input.now });
  const sealed = await deps.cipher.encrypt(input.value, secretContext(ws, record.id, number));
  const action = current === undefined ? 'secret.create' : 'secret.rotate';
  const audit = actor.audit(action, record, number);
  const version: NewVersion = { number, sealed, createdAt: iso(input.now), createdBy: actor.actorSub, encoding: input.encoding };
  const items = secretVersionItems(deps.db, ws, { ...record, sealed }, current, version, audit);
  return { ...items, secretId: record.id, version: number };
}

/** `prepareVersionWrite` bound to a table and a cipher: what another feature's service is given to prepare writes. */
export type VersionWritePreparer = (
  ...args: Parameters<typeof prepareVersionWrite> extends [unknown, ...infer Rest] ? Rest : never
) => Promise<PreparedVersionWrite>;

/** Binds `prepareVersionWrite` to the function's table and cipher (its composition module does, once). */
export function versionWritePreparer(deps: { db: Db; cipher: Cipher }): VersionWritePreparer {
  return (...args) => prepareVersionWrite(deps, ...args);
}
