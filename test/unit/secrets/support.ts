import { LOCAL_PLACE } from '../../../shared/secrets/secret-names.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import type { AuditWrite } from '../../../shared/audit/audit-packing.ts';
import type { EnvironmentItem } from '../../../shared/workspaces/project-store.ts';
import { VersionConflictError, type StoredSecret, type StoredVersion } from '../../../shared/secrets/secret-record.ts';
import { makeSecretService, type SecretServiceStore } from '../../../shared/secrets/secret-service.ts';
import { fakeCipher, fakeClock, principal } from '../support/fakes.ts';

/**
 * An in-memory secret store for the secret service tests: heads by id, versions, and the key item per environment.
 * `writeSecretVersion` keeps the real condition (the head must be at the revision the writer read), and
 * `events` records the order of the calls that matter (audit before decrypt).
 */

export const ENV: EnvironmentItem & { projectSlug: string } = {
  id: 'env_01',
  projectId: 'proj_01',
  name: 'Production',
  slug: 'prod',
  createdAt: '2026-01-01T00:00:00.000Z',
  projectSlug: 'app',
};

/** The store model; `beforeWrite` runs inside each write, before its condition is checked (to stage a race). */
export function secretStore(options: { beforeWrite?: (attempt: number) => void } = {}) {
  const heads = new Map<string, StoredSecret>();
  const versions = new Map<string, StoredVersion>();
  const writes: { previousVersion: number; audit: AuditEntry; secret: StoredSecret }[] = [];
  const reveals: { audit: AuditEntry; audits: readonly AuditEntry[]; limit: { credentialId: string; perMinute: number; now: number } }[] =
    [];
  const batchReads: string[][] = [];
  const events: string[] = [];
  const byKey = (key: string) => [...heads.values()].find((s) => s.environmentId === ENV.id && s.key === key);
  const notUsed = async (): Promise<never> => {
    throw new Error('not used by these tests');
  };

  const store = {
    getEnvironment: async (_ws, id) => (id === ENV.id ? ENV : undefined),
    getEnvironmentSecret: async (_ws, _env, key) => structuredClone(byKey(key)),
    getSecretHead: async (_ws, id) => structuredClone(heads.get(id)),
    getSecretByPath: async (_ws, path) => [...heads.values()].find((s) => `${s.projectSlug}/${s.envSlug}/${s.key}` === path),
    getSecretVersion: async (_ws, id, version) => versions.get(`${id}#${version}`),
    async writeSecretVersion(_ws, secret, expected, by, audit) {
      const previousVersion = expected?.currentVersion ?? 0;
      options.beforeWrite?.(writes.length);
      writes.push({ previousVersion, audit: audit!, secret });
      if ((byKey(secret.key)?.revision ?? 0) !== (expected?.revision ?? 0)) throw new VersionConflictError();
      heads.set(secret.id, structuredClone(secret));
      if (!by) return;
      const version = by.number ?? secret.currentVersion;
      versions.set(`${secret.id}#${version}`, {
        version,
        sealed: (by.sealed ?? secret.sealed)!,
        createdAt: secret.updatedAt,
        createdBy: by.createdBy,
        rolledBackFrom: null,
        versionId: by.versionId ?? null,
      });
    },
    async recordReveal(_ws, audit, limit) {
      events.push('recordReveal');
      const audits = flatAudit([audit]);
      reveals.push({ audit: audits[0]!, audits, limit });
    },
    async getSecretsByPaths(_ws, paths) {
      batchReads.push([...paths]);
      const byPath = (path: string) => [...heads.values()].find((s) => `${s.projectSlug}/${s.envSlug}/${s.key}` === path);
      return new Map(paths.map((path) => [path, structuredClone(byPath(path))]));
    },
    deleteSecret: async (_ws, secret) => void heads.delete(secret.id),
    purgeSecretVersions: async () => 0,
    // The reverse index as a reader answers it: the heads that still list the path.
    referencedBy: async (_ws, path) => [...heads.values()].filter((s) => s.references?.includes(path)).map((s) => s.id),
    listSecrets: async () => ({ items: [], nextCursor: null, hasMore: false }),
    searchSecrets: notUsed,
  } satisfies Partial<SecretServiceStore> as unknown as SecretServiceStore;
  return { store, heads, writes, reveals, events, batchReads };
}

/** A secret service over the model, with a cipher that logs its decrypts into the same event list. */
export function secretHarness(options: Parameters<typeof secretStore>[0] & { revealsPerMinute?: number } = {}) {
  const model = secretStore(options);
  const cipher = fakeCipher();
  const decrypt = cipher.decrypt;
  cipher.decrypt = async (sealed, context) => {
    model.events.push('decrypt');
    return decrypt(sealed, context);
  };
  const purgeFailures: string[] = [];
  const service = makeSecretService({
    store: model.store,
    cipher,
    clock: fakeClock(),
    place: LOCAL_PLACE,
    revealsPerMinute: options.revealsPerMinute ?? 120,
    onPurgeFailure: (secretId) => void purgeFailures.push(secretId),
    rotationOf: async () => null,
  });
  const write = (key: string, value: string, ifMatch?: number) => service.write(principal(), ENV.id, { key, value }, { ifMatch });
  return { ...model, cipher, service, write, purgeFailures, caller: principal() };
}

/** The entries of audit writes as the log answers them: each write's own, then those packed in its item. */
export function flatAudit(writes: readonly AuditWrite[]): AuditEntry[] {
  return writes.flatMap(({ packed = [], ...own }) => [own, ...packed]);
}
