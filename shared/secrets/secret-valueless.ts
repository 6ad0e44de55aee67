import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';
import { newId } from '../platform/ids.ts';
import type { Principal } from '../platform/principal.ts';
import type { SecretStore } from './secret-store.ts';
import type { EnvironmentRef } from './secret-guard.ts';
import { SecretExistsError, VersionConflictError, type SecretRecord } from './secret-record.ts';
import { metadataOf } from './secret-reveals.ts';
import type { WriteAnswer, WriteOptions } from './secret-write-types.ts';

/** Secrets created without a value (decisions.md v1.4, the AWS API's CreateSecret without SecretString or SecretBinary). */
export function makeValuelessCreate(deps: { store: Pick<SecretStore, 'writeSecretVersion'>; clock: Clock }) {
  const { store, clock } = deps;

  /**
   * Makes a secret with no value (decisions.md v1.4: the AWS API's CreateSecret without SecretString or SecretBinary):
   * a head at version 0, with no version, no label and no sealed value (loads leave it out), audited `secret.create`
   * with `version: 0`. The key must not exist; with `notInRecoveryWindow`, nor a secret deleted at its path be within
   * its window. Its first value is written as any next version is (version 1, `secret.rotate`).
   */
  async function createWithoutValue(
    principal: Principal,
    environment: EnvironmentRef,
    key: string,
    options: WriteOptions,
  ): Promise<WriteAnswer> {
    const now = clock.now();
    const record: SecretRecord = {
      id: newId('secret', now),
      key,
      projectId: environment.projectId,
      projectSlug: environment.projectSlug,
      environmentId: environment.id,
      envSlug: environment.slug,
      currentVersion: 0,
      createdAt: iso(now),
      updatedAt: iso(now),
      ...(options.metadata?.description != null && { description: options.metadata.description }),
      ...(options.metadata?.tags != null && { tags: options.metadata.tags }),
      revision: 1,
    };
    const answer = announceAnswer({ id: record.id, key, version: 0 });
    const audit = auditEntry(principal, 'secret.create', record.id, { ...metadataOf(record), version: 0 }, now);
    try {
      await store.writeSecretVersion(principal.workspaceId, { ...record, sealed: undefined }, undefined, null, audit, undefined, {
        notInRecoveryWindow: options.notInRecoveryWindow,
      });
    } catch (error) {
      if (error instanceof VersionConflictError) throw new SecretExistsError(`key: ${key} already exists in its environment`);
      throw error;
    }
    return { ...answer, versionId: null, secret: record };
  }

  return { createWithoutValue };
}
