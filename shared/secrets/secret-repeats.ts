import { mayCompareRepeatedWrite } from '../access/index.ts';
import { auditEntry } from '../audit/index.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { secretContext } from '../platform/crypto/context.ts';
import type { Clock } from '../platform/clock.ts';
import { ValidationError } from '../platform/errors.ts';
import type { Principal } from '../platform/principal.ts';
import type { SecretStore } from './secret-store.ts';
import type { SecretMetadataStore } from './secret-metadata-store.ts';
import type { EnvironmentValueStore } from './environment-value-store.ts';
import { latestVersionOf } from './secret-labels.ts';
import { versionOfDerivedId } from './secret-names.ts';
import { VersionIdExistsError, type SecretRecord } from './secret-record.ts';
import { metadataOf, workspaceRevealLimit } from './secret-reveals.ts';
import type { WriteAnswer, WriteInput } from './secret-write-types.ts';

/**
 * Writes that repeat a `ClientRequestToken` naming an existing version (decisions.md v1.4, Hardening): no value
 * oracle (compared only for who may reveal or wrote it), audited and counted as reveals; and VersionIds that never
 * change meaning (a derived VersionId is never claimed by another value).
 */
export interface RepeatedWritesDeps {
  store: Pick<SecretStore, 'getSecretHead' | 'getSecretVersion'> &
    Pick<SecretMetadataStore, 'getVersionNumberOf'> &
    Pick<EnvironmentValueStore, 'countRevealPage' | 'writeAuditEntries'>;
  cipher: Cipher;
  clock: Clock;
  revealsPerMinute: number;
  workspaceRevealsPerMinute?: number | undefined;
}

export function makeRepeatedWrites(deps: RepeatedWritesDeps) {
  const { store, cipher, clock } = deps;

  /**
   * A write whose token has the shape of this secret's derived VersionIds (secret-names.ts), which no claim item
   * guards. It is a repeat of version `named` when that version was written without a token of its own (its
   * VersionId is this one); undefined (write on) when it is the very version this write makes. Any other use would
   * give one VersionId two meanings: refused.
   */
  async function derivedTokenWrite(principal: Principal, current: SecretRecord, versionId: string, number: number, input: WriteInput) {
    const named = versionOfDerivedId(current.id, versionId)!;
    if (named === number) return undefined;
    const repeated = named <= latestVersionOf(current) ? await repeatedWrite(principal, current, versionId, input) : undefined;
    if (repeated) return repeated;
    throw new ValidationError(
      `ClientRequestToken: has the form of the VersionIds of ${current.key} (version ${named}); use a token of your own`,
    );
  }

  /**
   * A write whose VersionId already names a version of the secret (decisions.md v1.4, Hardening). The stored value
   * is compared only for a caller who may reveal the secret or wrote that version itself (`mayCompareRepeatedWrite`):
   * the same value answers that version (no new one, as AWS documents `ClientRequestToken`); another value, or any
   * value from anyone else, is VersionIdExistsError. Every repeat counts against the caller's reveal limits before
   * anything is opened, and is audited `secret.write_repeated` (`matched`: true, false, or null when not compared)
   * before the answer. Undefined when the token names no version (yet).
   */
  async function repeatedWrite(
    principal: Principal,
    secret: SecretRecord,
    versionId: string,
    input: WriteInput,
  ): Promise<WriteAnswer | undefined> {
    const ws = principal.workspaceId;
    const derived = versionOfDerivedId(secret.id, versionId);
    const version = derived ?? (await store.getVersionNumberOf(ws, secret.id, versionId));
    const stored = version === undefined ? undefined : await store.getSecretVersion(ws, secret.id, version);
    // A derived id names the version only while that version has no token of its own.
    if (version === undefined || !stored || (derived !== undefined && stored.versionId !== null)) return undefined;
    const now = clock.now();
    const limit = {
      credentialId: principal.credentialId,
      perMinute: deps.revealsPerMinute,
      workspacePerMinute: workspaceRevealLimit(deps),
      now,
    };
    await store.countRevealPage(ws, limit);
    const matched = mayCompareRepeatedWrite(principal, secret, stored.createdBy)
      ? stored.encoding === input.encoding && (await cipher.decrypt(stored.sealed, secretContext(ws, secret.id, version))) === input.value
      : null;
    await store.writeAuditEntries(ws, [
      auditEntry(principal, 'secret.write_repeated', secret.id, { ...metadataOf(secret), version, matched }, now),
    ]);
    if (matched === null) throw new VersionIdExistsError(`ClientRequestToken: already names version ${version} of ${secret.key}`);
    if (!matched) throw new VersionIdExistsError(`ClientRequestToken: a version of ${secret.key} with this token has another value`);
    const head = await store.getSecretHead(ws, secret.id);
    const { sealed: _sealed, ...record } = head ?? { ...secret, sealed: undefined };
    return { id: secret.id, key: secret.key, version, versionId, secret: record, repeated: true };
  }

  return { repeatedWrite, derivedTokenWrite };
}
