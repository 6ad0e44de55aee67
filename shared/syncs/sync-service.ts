import { assertMayManageSyncs, requireAccess } from '../access/index.ts';
import { auditEntry } from '../audit/index.ts';
import { iso, type Clock } from '../platform/clock.ts';
import { syncTokenContext } from '../platform/crypto/context.ts';
import type { Cipher } from '../platform/crypto/envelope.ts';
import { ConflictError } from '../platform/errors.ts';
import { announceAnswer } from '../platform/idempotency-scope.ts';
import { newId } from '../platform/ids.ts';
import type { Principal } from '../platform/principal.ts';
import type { PageRequest } from '../platform/store/query.ts';
import { newDestination, patchedDestination, type UrlCheck } from './sync-destinations.ts';
import type { SyncQueue } from './sync-queue.ts';
import type { SyncRecord } from './sync-records.ts';
import type { DestinationInput, DestinationPatch } from './sync-schemas.ts';
import type { SyncChanges, SyncEnvironment, SyncStore } from './sync-store.ts';

export interface CreateSyncInput {
  environmentId: string;
  destination: DestinationInput;
  keys?: string | undefined;
  prune?: boolean | undefined;
}

export interface SyncPatch {
  destination?: DestinationPatch | undefined;
  keys?: string | undefined;
  prune?: boolean | undefined;
  paused?: boolean | undefined;
}

export interface SyncServiceDeps {
  store: Pick<SyncStore, 'getSyncEnvironment' | 'getSync' | 'listSyncPage' | 'createSync' | 'updateSync' | 'deleteSync'>;
  cipher: Pick<Cipher, 'encrypt'>;
  clock: Clock;
  /** The sync queue: a new sync, `run` and a resume queue a full sync. */
  queue: SyncQueue;
  checkUrl: UrlCheck;
}

/** A sync as the API answers it: no token, no lease, no revision (the answer schema keeps to these too). */
export function syncAnswerOf(sync: SyncRecord) {
  const { id, environmentId, destination, keys, prune, status, lastSyncedAt, lastError, createdAt } = sync;
  return { id, environmentId, destination, keys, prune, status, lastSyncedAt, lastError, createdAt };
}

/** What every audit entry of a sync names (never its token). */
const syncMetadata = (sync: SyncRecord) => ({
  syncId: sync.id,
  environmentId: sync.environmentId,
  projectId: sync.projectId,
  destinationType: sync.destination.type,
});

/**
 * Syncs (decisions.md v1.4, "Syncs"), for admins: each method asks `assertMayManageSyncs` first, and a sync whose
 * environment the caller may not see is NOT_FOUND, as one of another workspace.
 */
export function makeSyncService(deps: SyncServiceDeps) {
  const { store, cipher, clock } = deps;
  const visible = <T extends SyncEnvironment>(principal: Principal, found: T | undefined, notFound: string) =>
    requireAccess(principal, found, (place) => ({ project: place.projectSlug, environment: place.envSlug }), { notFound });
  const find = async (principal: Principal, syncId: string) =>
    visible(principal, await store.getSync(principal.workspaceId, syncId), `sync ${syncId} was not found`);
  const queueFullSync = (workspaceId: string, syncId: string, now: number) =>
    deps.queue.enqueue({ workspaceId, syncId, keys: null, at: now, attempt: 1 });
  const seal = (workspaceId: string, syncId: string, token: string) => cipher.encrypt(token, syncTokenContext(workspaceId, syncId));

  /** Makes a sync (status `pending`) and queues its first full push. */
  async function create(principal: Principal, input: CreateSyncInput) {
    assertMayManageSyncs(principal);
    const ws = principal.workspaceId;
    const env = await store.getSyncEnvironment(ws, input.environmentId);
    const place = await visible(principal, env, `environment ${input.environmentId} was not found`);
    const { destination, token } = await newDestination(input.destination, deps.checkUrl);
    const now = clock.now();
    const id = newId('sync', now);
    const sync: SyncRecord = {
      id,
      accountId: principal.accountId,
      ...place,
      destination,
      ...(token !== undefined && { sealedToken: await seal(ws, id, token) }),
      keys: input.keys ?? '**',
      prune: input.prune ?? false,
      status: 'pending',
      lastSyncedAt: null,
      lastError: null,
      failingSince: null,
      createdAt: iso(now),
      updatedAt: iso(now),
      revision: 1,
    };
    const metadata = { ...syncMetadata(sync), keys: sync.keys, prune: sync.prune };
    const answer = announceAnswer(syncAnswerOf(sync));
    await store.createSync(ws, sync, auditEntry(principal, 'sync.create', id, metadata, now));
    await queueFullSync(ws, id, now);
    return answer;
  }

  /** The workspace's syncs the caller may see, newest first; `environmentId` keeps one environment's. */
  async function list(principal: Principal, page: PageRequest, environmentId?: string) {
    assertMayManageSyncs(principal);
    const ws = principal.workspaceId;
    if (environmentId !== undefined)
      await visible(principal, await store.getSyncEnvironment(ws, environmentId), `environment ${environmentId} was not found`);
    const { policy } = principal.authority;
    const keep = (sync: SyncRecord) =>
      (environmentId === undefined || sync.environmentId === environmentId) && policy.environmentVisible(sync.projectSlug, sync.envSlug);
    const found = await store.listSyncPage(ws, page, keep);
    return { ...found, items: found.items.map(syncAnswerOf) };
  }

  async function get(principal: Principal, syncId: string) {
    assertMayManageSyncs(principal);
    return syncAnswerOf(await find(principal, syncId));
  }

  /**
   * Changes the destination (a new token sealed again; the type never changes), keys, prune, or pauses and resumes:
   * `paused: false` of a paused sync makes it `pending` and queues a full sync.
   */
  async function update(principal: Principal, syncId: string, patch: SyncPatch) {
    assertMayManageSyncs(principal);
    const ws = principal.workspaceId;
    const current = await find(principal, syncId);
    const changes: SyncChanges = {};
    let tokenChanged = false;
    if (patch.destination !== undefined) {
      const { destination, token } = await patchedDestination(current.destination, patch.destination, deps.checkUrl);
      changes.destination = destination;
      if (token !== undefined) [changes.sealedToken, tokenChanged] = [await seal(ws, syncId, token), true];
    }
    if (patch.keys !== undefined) changes.keys = patch.keys;
    if (patch.prune !== undefined) changes.prune = patch.prune;
    const resume = patch.paused === false && current.status === 'paused';
    if (patch.paused === true) changes.status = 'paused';
    if (resume) changes.status = 'pending';
    const now = clock.now();
    const { sealedToken: _sealed, ...shown } = changes;
    const metadata = { ...syncMetadata(current), changed: Object.keys(patch), ...shown, ...(tokenChanged && { tokenChanged: true }) };
    const next: SyncRecord = { ...current, ...changes, updatedAt: iso(now), revision: current.revision + 1 };
    const answer = announceAnswer(syncAnswerOf(next));
    await store.updateSync(
      ws,
      syncId,
      current.revision,
      { ...changes, updatedAt: next.updatedAt },
      auditEntry(principal, 'sync.update', syncId, metadata, now),
    );
    if (resume) await queueFullSync(ws, syncId, now);
    return answer;
  }

  /** Queues a full sync now (202); a paused sync is CONFLICT: it is resumed by PATCH `paused: false`. */
  async function run(principal: Principal, syncId: string) {
    assertMayManageSyncs(principal);
    const sync = await find(principal, syncId);
    if (sync.status === 'paused') throw new ConflictError(`sync ${syncId} is paused: resume it (PATCH paused: false) to run it`);
    await queueFullSync(principal.workspaceId, syncId, clock.now());
    return syncAnswerOf(sync);
  }

  /** Deletes the sync and what it tracks of its destination (the values it wrote there stay). */
  async function remove(principal: Principal, syncId: string) {
    assertMayManageSyncs(principal);
    const sync = await find(principal, syncId);
    const answer = announceAnswer({ id: syncId, deleted: true as const });
    await store.deleteSync(principal.workspaceId, syncId, auditEntry(principal, 'sync.delete', syncId, syncMetadata(sync), clock.now()));
    return answer;
  }

  return { create, list, get, update, run, delete: remove };
}

export type SyncService = ReturnType<typeof makeSyncService>;
