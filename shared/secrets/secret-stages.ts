import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import type { SecretStore } from './secret-store.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { makeSecretGuard } from './secret-guard.ts';
import {
  AWSCURRENT,
  checkLabelRelease,
  keepLabelled,
  labelsAfterMove,
  latestVersionOf,
  type LabelState,
  stagesByVersion,
  storedLabels,
} from './secret-labels.ts';
import { derivedVersionId, versionIdOf, versionOfVersionId } from './secret-names.ts';
import { untilHeadWritten } from './head-retries.ts';
import { revisionAfter, type SecretRecord, type StoredSecret, type ValueEncoding } from './secret-record.ts';
import { metadataOf } from './secret-reveals.ts';
import type { ReviewGate } from './review-gate.ts';

/**
 * Moving a staging label (the AWS API's UpdateSecretVersionStage; decisions.md, "Rotation"), under `write`: the labels
 * change on the head by the rules of secret-labels.ts. Moving AWSCURRENT makes another version's value the current one
 * (the head and its path item, which loads read, take its sealed value) and is audited `secret.rotate` with that
 * version, so `service.secret.rotate` fires; any other move is audited `secret.stage` (no event). A concurrent write
 * makes the move read again.
 */

const MOVE_RETRIES = { attempts: 20, capMs: 500, stepMs: 8 };

/**
 * The head after a label move: the labels and the current version it decides, the tokens of the versions still
 * labelled (the one moved to brings its own), and the highest version number kept when AWSCURRENT moves back to an
 * older version (the next write must still take the number after it, and the versions above stay addressable).
 */
function headAfterMove(
  head: StoredSecret,
  state: LabelState,
  to: { number: number; versionId: string } | undefined,
  updatedAt: string,
  encoding: ValueEncoding | undefined,
  references: string[] | undefined,
) {
  const { sealed: _old, labels: _labels, versionIds: _ids, latestVersion: _latest, encoding: _encoding, references: _refs, ...rest } = head;
  const token = to && to.versionId !== derivedVersionId(head.id, to.number) ? { [String(to.number)]: to.versionId } : {};
  const versionIds = keepLabelled<string>({ ...head.versionIds, ...token }, state);
  const latestVersion = latestVersionOf(head);
  const record: SecretRecord = {
    ...rest,
    currentVersion: state.currentVersion,
    // Stored with AWSCURRENT, so never empty: a head without labels reads as one written before them (secret-labels.ts).
    labels: storedLabels(state),
    ...(latestVersion > state.currentVersion && { latestVersion }),
    ...(versionIds && { versionIds }),
    updatedAt,
    revision: revisionAfter(head),
    // The head's encoding is its current version's (a binary value's: secret-record.ts).
    ...(encoding && { encoding }),
    // So are its references (the marker a reveal resolves by: secret-references.ts).
    ...(references?.length && { references }),
  };
  return record;
}

/** The label moves of the secrets service and its list of labelled versions (the module's comment above). */
export function makeSecretStages(
  deps: {
    store: Pick<SecretStore, 'getSecretHead' | 'getSecretVersion' | 'writeSecretVersion'> &
      Pick<SecretMetadataStore, 'getSecretVersionRecords' | 'getVersionNumberOf'>;
    clock: Clock;
    /** A label move changes which value is current, or which a rotation writes next: the review gate asks. */
    reviewGate: ReviewGate;
  },
  guard: Pick<ReturnType<typeof makeSecretGuard>, 'readable' | 'permit'>,
) {
  const { store, clock } = deps;

  /**
   * The version a VersionId names in the secret, labelled or not, or undefined. A derived id names an unlabelled
   * version only if that version was written without a token: the head forgets the tokens of versions without a
   * label, so their item says (one read, only on this path).
   */
  async function numberOf(ws: string, head: StoredSecret, versionId: string): Promise<number | undefined> {
    const number = await versionOfVersionId(head, versionId, (id) => store.getVersionNumberOf(ws, head.id, id));
    if (number === undefined || number < 1 || number > latestVersionOf(head)) return undefined;
    if (versionId !== derivedVersionId(head.id, number) || stagesByVersion(head).has(number)) return number;
    const [record] = await store.getSecretVersionRecords(ws, head.id, [number]);
    return record && record.versionId === null ? number : undefined;
  }

  /**
   * What UpdateSecretVersionStage names: MoveToVersionId must name a version (NOT_FOUND); a RemoveFromVersionId that
   * names none is refused by the label rule first when the label is on another version (AWS: "the version ID does
   * not match"), NOT_FOUND otherwise. Answers the labels after the move (secret-labels.ts decides).
   */
  async function plannedMove(ws: string, head: StoredSecret, stage: string, moveToVersionId?: string, removeFromVersionId?: string) {
    const toNumber = moveToVersionId === undefined ? undefined : await numberOf(ws, head, moveToVersionId);
    if (moveToVersionId !== undefined && toNumber === undefined)
      throw new NotFoundError(`MoveToVersionId: secret ${head.id} has no version with this VersionId`);
    const removeFrom = removeFromVersionId === undefined ? undefined : await numberOf(ws, head, removeFromVersionId);
    if (removeFromVersionId !== undefined && removeFrom === undefined) {
      checkLabelRelease(head, stage, toNumber, undefined);
      throw new NotFoundError(`RemoveFromVersionId: secret ${head.id} has no version with this VersionId`);
    }
    // A version reserved by a rotation has no value until PutSecretValue fills it: it cannot become current.
    if (toNumber !== undefined && stage === AWSCURRENT && head.unfilled?.includes(toNumber))
      throw new ConflictError('MoveToVersionId: that version has no value yet; PutSecretValue with its token first');
    const to = toNumber === undefined ? undefined : { number: toNumber, versionId: moveToVersionId! };
    return { to, removeFrom, state: labelsAfterMove(head, stage, toNumber, removeFrom) };
  }

  return {
    /**
     * The versions of the secret the caller's lookup found that carry a label, newest first, each with its VersionId,
     * its labels and when it was written (null for one a rotation reserved that has no value yet): ListSecretVersionIds
     * without IncludeDeprecated. One BatchGetItem of their items, values never read.
     */
    async labelledVersions(principal: Principal, found: SecretRecord) {
      const head = await guard.readable(principal, found, found.id);
      const byVersion = stagesByVersion(head);
      const numbers = [...byVersion.keys()].sort((a, b) => b - a);
      const written = numbers.filter((version) => !head.unfilled?.includes(version));
      const records = await store.getSecretVersionRecords(principal.workspaceId, head.id, written);
      const createdAt = new Map(records.map((record) => [record.version, record.createdAt]));
      return numbers.map((version) => ({
        version,
        versionId: versionIdOf(head, version),
        stages: byVersion.get(version)!,
        createdAt: createdAt.get(version) ?? null,
      }));
    },

    /**
     * Moves `stage` to `moveTo` (or takes it off `removeFrom`) on the secret the caller's lookup found; answers the
     * secret after the move. The head is read again strongly consistent, and the policy asked on it.
     */
    async moveStage(
      principal: Principal,
      found: SecretRecord,
      stage: string,
      moveToVersionId: string | undefined,
      removeFromVersionId: string | undefined,
    ): Promise<SecretRecord> {
      const ws = principal.workspaceId;
      return untilHeadWritten(found.id, MOVE_RETRIES, async () => {
        const head = await guard.readable(principal, await store.getSecretHead(ws, found.id), found.id);
        await guard.permit(principal, 'write', head);
        await deps.reviewGate(principal, head, { versionId: moveToVersionId });
        const { to, removeFrom, state } = await plannedMove(ws, head, stage, moveToVersionId, removeFromVersionId);
        const now = clock.now();
        const currentMoved = state.currentVersion !== head.currentVersion;
        let sealed = head.sealed;
        // The head's encoding is its current version's (a binary value's: secret-record.ts).
        let encoding = head.encoding;
        let references = head.references;
        if (currentMoved) {
          const version = await store.getSecretVersion(ws, head.id, state.currentVersion);
          if (!version) throw new NotFoundError(`secret ${head.id} has no version ${state.currentVersion}`);
          sealed = version.sealed;
          encoding = version.encoding;
          references = version.references;
        }
        const record = headAfterMove(head, state, to, currentMoved ? iso(now) : head.updatedAt, encoding, references);
        const audit = currentMoved
          ? auditEntry(principal, 'secret.rotate', head.id, { ...metadataOf(head), version: state.currentVersion, stage }, now)
          : auditEntry(
              principal,
              'secret.stage',
              head.id,
              {
                ...metadataOf(head),
                stage,
                ...(to && { version: to.number }),
                ...(removeFrom !== undefined && { removedFrom: removeFrom }),
              },
              now,
            );
        await store.writeSecretVersion(ws, { ...record, sealed }, head, null, audit);
        return record;
      });
    },
  };
}
