import { compilePolicy } from '../../../shared/access/access-policy.ts';
import { roleAuthority } from '../../../shared/access/permissions.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { ChangeRequestChangedError, type ChangeRequestRecord } from '../../../shared/change-requests/change-request-records.ts';
import { makeChangeRequestService } from '../../../shared/change-requests/change-request-service.ts';
import type { PreparedWrite, RequestEnvironment } from '../../../shared/change-requests/change-request-store.ts';
import type { PermissionRule, Principal } from '../../../shared/platform/principal.ts';
import { fakeCipher, fakeClock, principal } from '../support/fakes.ts';

/** The change requests service over an in-memory store: requests, the keys' current versions, what was written. */

export const ENV: RequestEnvironment = {
  environmentId: 'env_01',
  projectId: 'proj_01',
  projectSlug: 'app',
  envSlug: 'prod',
  requiredApprovals: 1,
};

export const person = (sub: string, role: 'admin' | 'developer' | 'viewer'): Principal =>
  principal({ kind: 'user', actorSub: sub, credentialId: sub, authority: roleAuthority(role) });

export const machine = (sub: string, rules?: PermissionRule[]): Principal =>
  principal({
    kind: 'machine',
    actorSub: sub,
    credentialId: sub,
    authority: {
      policy: compilePolicy(
        rules ?? [{ effect: 'allow', projects: ['*'], environments: ['*'], keys: ['**'], actions: ['read', 'reveal', 'write', 'delete'] }],
      ),
      admin: false,
    },
  });

export function changeRequests(options: { requiredApprovals?: number; itemsPerWrite?: number } = {}) {
  const requests = new Map<string, ChangeRequestRecord>();
  const versions = new Map<string, number>();
  const audits: AuditEntry[] = [];
  const events: string[] = [];
  const committed: { writes: readonly PreparedWrite[] }[] = [];
  const prepared: { key: string; value: string; audit: AuditEntry }[] = [];
  /** Moves a key between the merge's read and its commit (a write that slips in). */
  const race = { moveKeyOnCommit: undefined as string | undefined };
  const clock = fakeClock();
  const cipher = fakeCipher();
  const environment = { ...ENV, requiredApprovals: options.requiredApprovals ?? 1 };
  const store = {
    getRequestEnvironment: async (_ws: string, id: string) => (id === ENV.environmentId ? environment : undefined),
    getSecretHead: async (_ws: string, id: string) => {
      const key = id.slice('sec_'.length);
      return versions.has(key)
        ? ({ id, key, currentVersion: versions.get(key)!, projectId: ENV.projectId, environmentId: ENV.environmentId } as never)
        : undefined;
    },
    getEnvironmentSecret: async (_ws: string, _env: string, key: string) =>
      versions.has(key) ? ({ id: `sec_${key}`, key, currentVersion: versions.get(key)! } as never) : undefined,
    putChangeRequest: async (_ws: string, record: ChangeRequestRecord, audit: AuditEntry) => {
      requests.set(record.id, structuredClone(record));
      audits.push(audit);
    },
    getChangeRequest: async (_ws: string, id: string) => structuredClone(requests.get(id)),
    listChangeRequests: async (_ws: string, _env: string, _page: unknown, keep?: (r: ChangeRequestRecord) => boolean) => ({
      items: [...requests.values()].filter((r) => !keep || keep(r)),
      nextCursor: null,
      hasMore: false,
    }),
    updateChangeRequest: async (
      _ws: string,
      next: ChangeRequestRecord,
      read: ChangeRequestRecord,
      audit: AuditEntry,
      writes: readonly PreparedWrite[] = [],
    ) => {
      if (requests.get(next.id)!.revision !== read.revision) throw new ChangeRequestChangedError();
      if (race.moveKeyOnCommit) {
        const key = race.moveKeyOnCommit;
        race.moveKeyOnCommit = undefined;
        versions.set(key, (versions.get(key) ?? 0) + 1);
        return 0;
      }
      requests.set(next.id, structuredClone(next));
      audits.push(audit);
      if (writes.length > 0) committed.push({ writes });
      return undefined;
    },
    recordReveal: async (_ws: string, audit: AuditEntry) => {
      events.push('recordReveal');
      audits.push(audit);
    },
  };
  const service = makeChangeRequestService({
    store,
    cipher: {
      encrypt: cipher.encrypt,
      decrypt: async (sealed, context) => {
        events.push('decrypt');
        return cipher.decrypt(sealed, context);
      },
    },
    clock,
    revealLimit: { perMinute: 100, workspacePerMinute: 1000 },
    prepareDelete: (_ws, head, audit) => {
      prepared.push({ key: head.key, value: '(deleted)', audit });
      return [{ ConditionCheck: { Key: { key: head.key } } } as never];
    },
    prepareWrite: async (actor, env, current, input) => {
      const secret = { id: current?.id ?? `sec_${input.key}`, key: input.key, projectId: env.projectId, environmentId: env.id } as never;
      const version = (current?.currentVersion ?? 0) + 1;
      const audit = actor.audit(current ? 'secret.rotate' : 'secret.create', secret, version);
      prepared.push({ key: input.key, value: input.value, audit });
      return {
        items: Array.from({ length: options.itemsPerWrite ?? 1 }, () => ({ ConditionCheck: { Key: { key: input.key } } }) as never),
        keyItemAt: 0,
        versionAt: undefined,
        claimAt: undefined,
        secretId: `sec_${input.key}`,
        version,
        audit,
      };
    },
  });
  return { service, requests, versions, audits, events, committed, prepared, race, clock, cipher };
}
