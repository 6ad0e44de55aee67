import type { AuditEntry } from '../audit/index.ts';
import { iso } from '../platform/clock.ts';
import { secretContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { newId } from '../platform/ids.ts';
import type { Db } from '../platform/store/send.ts';
import type { EnvironmentRef } from './secret-guard.ts';
import { AWSCURRENT, keepLabelled, labelsAfterWrite, latestVersionOf, storedLabels } from './secret-labels.ts';
import { revisionAfter, type SecretRecord } from './secret-record.ts';
import { secretVersionItems, type NewVersion, type VersionWriteItems } from './secret-version-items.ts';
import type { WriteInput } from './secret-write-types.ts';
import { mayReference } from './secret-reference-marks.ts';
import { referenceEdgeItems } from '../references/index.ts';

/**
 * What a write makes of a key's head, shared by the writer (secret-writer.ts) and a change request's merge, which
 * prepares its versions here without sending them (their items: secret-version-items.ts). Apart from the items,
 * which the secrets store sends at every cold start, so that this stays in the chunks that write.
 */

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

/** What a write makes of the key's head: the record after version `number`, given what the write read (`current`). */
export function secretAfterWrite(
  current: SecretRecord | undefined,
  environment: EnvironmentRef,
  write: {
    input: WriteInput;
    number: number;
    stages: readonly string[];
    versionId?: string | undefined;
    now: number;
    /** The targets of the new version's references (shared/secrets/secret-references.ts); none for a plain value. */
    references?: readonly string[] | undefined;
  },
  metadata?: { description?: string | null; tags?: Record<string, string> | null },
): SecretRecord {
  const { input, number, now } = write;
  const labelled = labelledAfter(current, number, write.stages, write.versionId);
  const becomesCurrent = labelled.currentVersion === number;
  const description = metadata?.description === undefined ? current?.description : metadata.description;
  // The head's encoding is its current version's.
  const encoding = becomesCurrent ? input.encoding : current?.encoding;
  const tags = metadata?.tags === undefined ? current?.tags : metadata.tags;
  // The head's references are its current version's, as its encoding is.
  const references = write.references ?? [];
  const headReferences = becomesCurrent ? (references.length > 0 ? [...references] : undefined) : current?.references;
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
    ...(headReferences && { references: headReferences }),
  };
}

/**
 * A version write prepared for another feature's transaction: its items, the version it makes, and its audit entry,
 * which is not among the items: the caller writes it packed with its other entries (audit-packing.ts).
 */
export interface PreparedVersionWrite extends VersionWriteItems {
  secretId: string;
  version: number;
  audit: AuditEntry;
}

/**
 * Prepares, without writing, the next current version of `input.key` after `current` (the key item as read; undefined
 * for a new key): the value sealed under the version's context, and the items a write stores, and its audit entry
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
  // The references marker a reveal resolves by, as any write stores it (VALIDATION_ERROR for one that does not parse).
  const references = mayReference(input) ? (await import('./secret-references.ts')).referencesOf(environment, input.key, input) : [];
  const record = secretAfterWrite(current, environment, { input, number, stages: [AWSCURRENT], now: input.now, references });
  const sealed = await deps.cipher.encrypt(input.value, secretContext(ws, record.id, number));
  const action = current === undefined ? 'secret.create' : 'secret.rotate';
  const audit = actor.audit(action, record, number);
  const version: NewVersion = { number, sealed, createdAt: iso(input.now), createdBy: actor.actorSub, encoding: input.encoding };
  const prepared = secretVersionItems(deps.db, ws, { ...record, sealed }, current, version, undefined);
  // The reverse index's edges of the targets it adds; those it drops stay until a reader confirms them by the head
  // (room 0: a merge's transaction has no item to spare for them).
  const edges = referenceEdgeItems(deps.db, ws, record.id, current?.references, record.references, 0);
  return { ...prepared, items: [...prepared.items, ...edges], secretId: record.id, version: number, audit };
}

/** `prepareVersionWrite` bound to a table and a cipher: what another feature's service is given to prepare writes. */
export type VersionWritePreparer = (
  ...args: Parameters<typeof prepareVersionWrite> extends [unknown, ...infer Rest] ? Rest : never
) => Promise<PreparedVersionWrite>;

/** Binds `prepareVersionWrite` to the function's table and cipher (its composition module does, once). */
export function versionWritePreparer(deps: { db: Db; cipher: Cipher }): VersionWritePreparer {
  return (...args) => prepareVersionWrite(deps, ...args);
}
