import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { secretContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';
import type { Principal } from '../platform/principal.ts';
import type { SecretStore } from './secret-store.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { EnvironmentValueStore } from './environment-value-store.ts';
import type { EnvironmentRef, makeSecretGuard } from './secret-guard.ts';
import { untilHeadWritten } from './head-retries.ts';
import { metadataOf } from './secret-reveals.ts';
import { makeRepeatedWrites } from './secret-repeats.ts';
import { versionOfDerivedId } from './secret-names.ts';
import { mayReference } from './secret-reference-marks.ts';
import {
  revisionAfter,
  SecretExistsError,
  VersionConflictError,
  VersionIdExistsError,
  VersionIdTakenError,
  type SecretRecord,
  type StoredSecret,
} from './secret-record.ts';
import { AWSCURRENT, latestVersionOf, StageRuleError } from './secret-labels.ts';
import { secretAfterWrite } from './secret-version-writes.ts';

export { SecretExistsError, VersionIdExistsError } from './secret-record.ts';

/**
 * How a secret's next version is written (shared by write, rollback and the AWS API's writes), once the caller's
 * access was decided by the service method: read the key's current version, check If-Match, seal the value under
 * the next version's context, commit conditionally, and on a lost race read again. A write's VersionId (an AWS
 * `ClientRequestToken`) is claimed with its version; a retry with it answers the version it made.
 */

/** The version a write with this VersionId fills: one a rotation reserved under it and that has no value yet. */
const reservedFor = (current: SecretRecord | undefined, versionId: string | undefined) =>
  versionId === undefined ? undefined : current?.unfilled?.find((version) => current.versionIds?.[String(version)] === versionId);

/** Concurrent writers of one key retry until each has its own version; this bounds a pathological pile-up. */
const WRITE_ATTEMPTS = 100;
/** A metadata change's lost races (tags, description) read again; as many as a write's, with shorter pauses. */
const METADATA_RETRIES = { attempts: WRITE_ATTEMPTS, capMs: 250, stepMs: 4 };

import type { SecretMetadata, WriteAnswer, WriteInput, WriteOptions } from './secret-write-types.ts';
export type { SecretMetadata, SecretValue, WriteAnswer, WriteInput, WriteOptions } from './secret-write-types.ts';

export interface SecretWriterDeps {
  store: Pick<SecretStore, 'getEnvironmentSecret' | 'getSecretHead' | 'getSecretVersion' | 'writeSecretVersion'> &
    Pick<SecretMetadataStore, 'getVersionNumberOf' | 'updateSecretMetadata'> &
    Pick<EnvironmentValueStore, 'countRevealPage' | 'writeAuditEntries'>;
  cipher: Cipher;
  clock: Clock;
  /** The reveal limits a repeated write counts against (a comparison with a stored value is a reveal's worth). */
  revealsPerMinute: number;
  workspaceRevealsPerMinute?: number | undefined;
  /** The service's guard: `changeMetadata` asks the policy on each read of the head. */
  guard: Pick<ReturnType<typeof makeSecretGuard>, 'readable' | 'permit'>;
}

export function makeSecretWriter(deps: SecretWriterDeps) {
  const { store, cipher, clock, guard } = deps;
  const { readable, permit } = guard;
  const { repeatedWrite, derivedTokenWrite } = makeRepeatedWrites(deps);
  /**
   * The write loop shared by write and rollback: read the key's current version, check If-Match, seal the value
   * under the next version's context, and commit conditionally; a lost race reads again (with jitter). A rollback
   * must find its own secret still there (a delete in between makes it NOT_FOUND, never a new secret).
   */
  async function writeNext(
    principal: Principal,
    environment: EnvironmentRef,
    input: WriteInput,
    options: WriteOptions & { rollback?: { secretId: string; from: number } },
  ): Promise<WriteAnswer> {
    const ws = principal.workspaceId;
    // Checked before anything is read: a value whose references do not parse is refused and leaves nothing.
    const references = mayReference(input)
      ? (await import('./secret-references.ts')).referencesOf(environment, input.key, input, options.rollback !== undefined)
      : [];
    // What a lost race found (the key as the winner left it), so the next attempt need not read it.
    let found: { current: SecretRecord | undefined } | undefined;
    // A write of the current version reads the key item (read ahead with the credential, or what a lost race found);
    // a version that will not be current keeps the head's sealed value, so it reads the head.
    const readKey = async (attempt: number) =>
      found ? found.current : store.getEnvironmentSecret(ws, environment.id, input.key, attempt === 0 ? options.prefetched : undefined);
    const readHead = async (_attempt: number) => {
      if (options.secretId === undefined) throw new StageRuleError('VersionStages: AWSCURRENT is required for a new secret');
      return store.getSecretHead(ws, options.secretId);
    };
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const started = Date.now();
      const stages = options.stages ?? [AWSCURRENT];
      const current = stages.includes(AWSCURRENT) ? await readKey(attempt) : await readHead(attempt);
      found = undefined;
      const mustBe = options.rollback?.secretId ?? options.secretId;
      if (mustBe !== undefined && current?.id !== mustBe) throw new NotFoundError(`secret ${mustBe} was not found`);
      const currentVersion = current?.currentVersion ?? 0;
      // A create (the AWS API's CreateSecret) finds the key taken even when it has no value yet (version 0).
      const taken = options.mustCreate === true && current !== undefined;
      if (taken || (options.ifMatch !== undefined && options.ifMatch !== currentVersion)) {
        // A retry of the write that made the key (the same token) answers what it made.
        const repeated =
          current && options.versionId !== undefined ? await repeatedWrite(principal, current, options.versionId, input) : undefined;
        if (repeated) return repeated;
        if (taken) throw new SecretExistsError(`key: ${input.key} already exists in its environment`);
        const message = `If-Match: the current version of ${input.key} is ${currentVersion}, not ${options.ifMatch}`;
        throw options.ifMatch === 0 ? new SecretExistsError(message) : new ConflictError(message);
      }
      const now = clock.now();
      // A rotation's reserved version is filled under its token; any other write takes the number after the highest.
      const reserved = reservedFor(current, options.versionId);
      const number = reserved ?? latestVersionOf(current) + 1;
      if (current && options.versionId !== undefined && versionOfDerivedId(current.id, options.versionId) !== undefined) {
        const repeated = await derivedTokenWrite(principal, current, options.versionId, number, input);
        if (repeated) return repeated;
      }
      const record = secretAfterWrite(
        current,
        environment,
        { input, number, stages, versionId: options.versionId, now, references },
        options.metadata,
      );
      const becomesCurrent = record.currentVersion === number;
      const sealed = await cipher.encrypt(input.value, secretContext(ws, record.id, number));
      // A secret created without a value gets its first version as a new version of an existing secret.
      const action = !becomesCurrent ? 'secret.stage' : current === undefined ? 'secret.create' : 'secret.rotate';
      const rolledBackFrom = options.rollback?.from;
      const metadata = {
        ...metadataOf(record),
        version: number,
        ...(rolledBackFrom !== undefined && { rolledBackFrom }),
        ...(!becomesCurrent && { stages: [...stages] }),
      };
      const answer = announceAnswer({ id: record.id, key: record.key, version: number });
      try {
        await store.writeSecretVersion(
          ws,
          { ...record, sealed: becomesCurrent ? sealed : (current as StoredSecret).sealed },
          current,
          {
            number,
            sealed,
            createdAt: iso(now),
            createdBy: principal.actorSub,
            rolledBackFrom,
            versionId: options.versionId,
            claim: reserved === undefined,
            encoding: input.encoding,
            references,
          },
          auditEntry(principal, action, record.id, metadata, now),
          undefined,
          { notInRecoveryWindow: options.notInRecoveryWindow },
        );
        return { ...answer, versionId: options.versionId ?? null, secret: record };
      } catch (error) {
        if (error instanceof VersionIdTakenError) {
          const repeated = await repeatedWrite(principal, record, options.versionId!, input);
          if (repeated) return repeated;
          // The token is claimed but names no version that can be read (a purge in between): no retry can win.
          throw new VersionIdExistsError(`ClientRequestToken: already names a version of ${input.key} that is gone`);
        }
        if (!(error instanceof VersionConflictError)) throw error;
        if (options.ifMatch !== undefined) throw new ConflictError(`If-Match: ${input.key} was changed by another write; read it again`);
        found = error.found;
        // Full jitter over a window that grows with the attempts and with how long this one took (the table's
        // latency under this contention): losers spread out instead of colliding again in lock-step.
        const window = Math.min(2000, Math.max(4, Date.now() - started) * 2 ** Math.min(attempt + 1, 4));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * window));
      }
    }
    throw new ConflictError(`key: too many concurrent writes of ${input.key}; retry`);
  }

  /**
   * Changes the secret's description or tags (not its value, so no version and no event), under `write`; audited
   * `secret.tag` with what changed (tag keys, never values). `change` maps what the head has now to the change, so
   * a concurrent change is merged, never lost: a lost race reads again.
   */
  async function changeMetadata(
    principal: Principal,
    secretId: string,
    change: (secret: SecretRecord) => SecretMetadata,
    describe: (secret: SecretRecord) => Record<string, unknown>,
  ) {
    const ws = principal.workspaceId;
    return untilHeadWritten(secretId, METADATA_RETRIES, async () => {
      const head = await readable(principal, await store.getSecretHead(ws, secretId), secretId);
      await permit(principal, 'write', head);
      const { sealed: _sealed, ...secret } = head;
      const changed = change(secret);
      const now = clock.now();
      // Forward even within one millisecond: the next change's condition must tell the two apart.
      const changedAt = iso(Math.max(now, Date.parse(secret.changedAt ?? secret.updatedAt) + 1));
      const next = { ...secret, changedAt, revision: revisionAfter(secret) };
      for (const field of ['description', 'tags'] as const) {
        if (changed[field] === null) delete next[field];
        else if (changed[field] !== undefined) Object.assign(next, { [field]: changed[field] });
      }
      await store.updateSecretMetadata(
        ws,
        next,
        secret,
        changed,
        auditEntry(principal, 'secret.tag', secretId, { ...metadataOf(secret), ...describe(secret) }, now),
      );
      return next;
    });
  }

  return { writeNext, changeMetadata };
}
