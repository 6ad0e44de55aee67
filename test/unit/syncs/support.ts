import { expect } from 'vitest';
import { compilePolicy } from '../../../shared/access/access-policy.ts';
import { roleAuthority } from '../../../shared/access/permissions.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { ConflictError, LimitExceededError, NotFoundError } from '../../../shared/platform/errors.ts';
import type { Principal } from '../../../shared/platform/principal.ts';
import { DestinationError, type DestinationContext } from '../../../shared/syncs/destinations/destination.ts';
import type { SyncMessage } from '../../../shared/syncs/sync-queue.ts';
import type { SyncRecord } from '../../../shared/syncs/sync-records.ts';
import { makeSyncService } from '../../../shared/syncs/sync-service.ts';
import { MAX_SYNCS, type SyncChanges, type SyncEnvironment } from '../../../shared/syncs/sync-store.ts';
import { fakeCipher, fakeClock, principal } from '../support/fakes.ts';

/**
 * Fixtures of the syncs tests: a stored sync, a destination's context, and the syncs service over an in-memory store
 * that keeps the real store's rules (the cap, the revision condition).
 */

/** A stored sync: Parameter Store under `/app/` for the environment `env_prod` of project `app`, pending, revision 1. */
export function syncRecord(over: Partial<SyncRecord> = {}): SyncRecord {
  return {
    id: 'sync_1',
    accountId: 'acc_1',
    environmentId: 'env_prod',
    projectId: 'prj_1',
    projectSlug: 'app',
    envSlug: 'prod',
    destination: { type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/app/' },
    keys: '**',
    prune: false,
    status: 'pending',
    lastSyncedAt: null,
    lastError: null,
    failingSince: null,
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
    revision: 1,
    ...over,
  };
}

/** What a destination is made with: workspace `ws_1`, sync `sync_1`, no token, no own account, no role allowed. */
export function destinationContext(over: Partial<DestinationContext> = {}): DestinationContext {
  return { workspaceId: 'ws_1', syncId: 'sync_1', ownAccount: false, roleArns: [], allowPrivateCidrs: '', ...over };
}

/** A DestinationError's message, or a failure of the test when the promise resolves or throws something else. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DestinationError);
  return (error as Error).message;
}

export const ENV: SyncEnvironment = { environmentId: 'env_01', projectId: 'proj_01', projectSlug: 'app', envSlug: 'prod' };
export const OTHER_ENV: SyncEnvironment = { environmentId: 'env_02', projectId: 'proj_02', projectSlug: 'billing', envSlug: 'prod' };

export const person = (role: 'admin' | 'developer' | 'viewer'): Principal =>
  principal({ kind: 'user', actorSub: `usr_${role}`, credentialId: `usr_${role}`, authority: roleAuthority(role) });

/** An admin credential (an API key's authority) that sees only the project `app`. */
export const scopedAdmin = (): Principal =>
  principal({
    authority: {
      policy: compilePolicy([{ effect: 'allow', projects: ['app'], environments: ['*'], keys: ['**'], actions: ['read'] }]),
      admin: true,
    },
  });

export const GITHUB = { type: 'github-actions' as const, repository: 'acme/web', token: 'ghp_SECRETTOKEN123' };
export const SSM = { type: 'aws-ssm' as const, region: 'eu-west-1', pathPrefix: '/app/prod/' };

export function syncs(options: { urlVerdict?: { ok: true } | { ok: false; reason: string } } = {}) {
  const stored = new Map<string, SyncRecord>();
  const audits: AuditEntry[] = [];
  const queued: SyncMessage[] = [];
  const checkedUrls: string[] = [];
  const clock = fakeClock();
  const cipher = fakeCipher();
  /** Bumps a sync's revision between a PATCH's read and its write (another PATCH slips in). */
  const race = { bumpOnUpdate: false };
  const store = {
    getSyncEnvironment: async (_ws: string, id: string) => [ENV, OTHER_ENV].find((env) => env.environmentId === id),
    getSync: async (_ws: string, id: string) => structuredClone(stored.get(id)),
    listSyncPage: async (_ws: string, _page: unknown, keep: (sync: SyncRecord) => boolean) => ({
      items: [...stored.values()].filter(keep).reverse(),
      nextCursor: null,
      hasMore: false,
    }),
    createSync: async (_ws: string, sync: SyncRecord, audit: AuditEntry) => {
      if (stored.size >= MAX_SYNCS) throw new LimitExceededError(`syncs: a workspace has at most ${MAX_SYNCS} syncs`);
      stored.set(sync.id, structuredClone(sync));
      audits.push(audit);
    },
    updateSync: async (_ws: string, id: string, read: number, changes: SyncChanges & { updatedAt: string }, audit: AuditEntry) => {
      const current = stored.get(id);
      if (!current) throw new NotFoundError(`sync ${id} was not found`);
      if (race.bumpOnUpdate) current.revision++;
      if (current.revision !== read) throw new ConflictError(`sync ${id} was changed by another request`);
      stored.set(id, { ...current, ...structuredClone(changes), revision: read + 1 });
      audits.push(audit);
    },
    deleteSync: async (_ws: string, id: string, audit: AuditEntry) => {
      if (!stored.delete(id)) throw new NotFoundError(`sync ${id} was not found`);
      audits.push(audit);
    },
  };
  const service = makeSyncService({
    store,
    cipher,
    clock,
    queue: { enqueue: async (message) => void queued.push(message) },
    checkUrl: async (url) => {
      checkedUrls.push(url);
      return options.urlVerdict ?? { ok: true };
    },
  });
  return { service, stored, audits, queued, checkedUrls, cipher, clock, race };
}
