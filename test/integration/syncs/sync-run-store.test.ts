import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemAuditEntry } from '../../../shared/audit/index.ts';
import { iso } from '../../../shared/platform/clock.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { LEASE_MS } from '../../../shared/syncs/pipeline/sync-push.ts';
import { makeSyncRunStore, type PushOutcome } from '../../../shared/syncs/pipeline/sync-run-store.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { waitFor } from '../../support/webhooks.ts';

/**
 * finishPush against DynamoDB Local (decisions.md v1.4, "Syncs"): a sync paused while a push ran stays paused. The
 * push's outcome, a success or a failure, records nothing on the sync's item (status, lastError, lastSyncedAt,
 * failingSince, pushedThrough, the written keys, its audit entry) and only gives its lease back. The sync is made and
 * paused through the API, as an admin does; the test plays the worker's part with the worker's own store.
 */

const { doc, tableName } = localStore();
const runs = makeSyncRunStore({ doc, tableName });
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let envId: string;

/** The sync's stored item, read consistently: every field, the worker's lease and push marks included. */
const storedSync = async (syncId: string) =>
  (await doc.send(new GetCommand({ TableName: tableName, Key: keys.sync(ws.workspaceId, syncId), ConsistentRead: true }))).Item!;

/**
 * A sync made through the API and pushed once by the sync worker (the environment is empty: the push sends nothing
 * and succeeds, leaving `ok` and its push marks), whose lease this test then takes as a push does, and which an
 * admin pauses (PATCH `paused: true`) while that push holds it. Answers the sync's id, the lease's owner and the
 * item as the pause left it.
 */
async function pausedDuringPush(repository: string) {
  const made = await call('POST', '/api/v1/syncs', {
    token: ws.apiKey,
    body: { environmentId: envId, destination: { type: 'github-actions', repository, token: 'ghp_RunStoreToken0123456789' } },
  });
  expect(made.status).toBe(201);
  const syncId = (made.body.data as { id: string }).id;
  // The worker's first push done and its lease given back: nothing else pushes this sync (no secret changes).
  await waitFor(
    async () => {
      const item = await storedSync(syncId);
      return item.status === 'ok' && item.leaseOwner === undefined;
    },
    20_000,
    `the first push of ${syncId}`,
  );
  const owner = `test-push-${repository}`;
  const now = Date.now();
  expect(await runs.takeLease(ws.workspaceId, syncId, owner, now, now + LEASE_MS)).toBe(true);
  const paused = await call('PATCH', `/api/v1/syncs/${syncId}`, { token: ws.apiKey, body: { paused: true } });
  expect(paused.status).toBe(200);
  const before = await storedSync(syncId);
  expect(before).toMatchObject({
    status: 'paused',
    leaseOwner: owner,
    lastSyncedAt: expect.any(String),
    pushedThrough: expect.any(Number),
  });
  return { syncId, owner, before };
}

/** The item as it was, without the lease: what a push that records nothing leaves. */
function withoutLease(item: Record<string, unknown>) {
  const { leaseOwner: _owner, leaseUntil: _until, ...rest } = item;
  return rest;
}

beforeAll(async () => {
  ws = await newWorkspace();
  ({
    environment: { id: envId },
  } = await newEnvironment(ws.apiKey, { project: 'runs', environment: 'prod' }));
});

describe('finishPush of a sync paused while the push ran', () => {
  it('a success (one UpdateItem) records nothing: the sync stays paused, its fields and marks as they were, the lease given back', async () => {
    // Prepare
    const { syncId, owner, before } = await pausedDuringPush('acme/success');
    const now = Date.now();
    const success: PushOutcome = { status: 'ok', lastSyncedAt: iso(now), lastError: null, failingSince: null, pushedThrough: now };

    // Act
    const recorded = await runs.finishPush(ws.workspaceId, syncId, owner, success);

    // Assess
    expect(recorded).toBe(false);
    const after = await storedSync(syncId);
    expect(after).toEqual(withoutLease(before));
    expect(after).toMatchObject({ status: 'paused', lastSyncedAt: before.lastSyncedAt, lastError: null });
    expect(after.pushedThrough).toBe(before.pushedThrough);
    expect(after).not.toHaveProperty('leaseOwner');
    expect(after).not.toHaveProperty('leaseUntil');
  });

  it('a failure with its audit entry and written keys (a transaction) records nothing and writes neither, the lease given back', async () => {
    // Prepare
    const { syncId, owner, before } = await pausedDuringPush('acme/failure');
    const now = Date.now();
    const audit = systemAuditEntry(before.accountId as string, 'sync.update', syncId, { syncId, status: 'failing' }, now);
    const failure: PushOutcome = {
      status: 'failing',
      lastSyncedAt: before.lastSyncedAt as string,
      lastError: 'github-actions: 401 Bad credentials',
      failingSince: iso(now - 86_400_000),
      written: new Set(['DB_URL']),
      audit,
    };

    // Act
    const recorded = await runs.finishPush(ws.workspaceId, syncId, owner, failure);

    // Assess
    expect(recorded).toBe(false);
    const after = await storedSync(syncId);
    expect(after).toEqual(withoutLease(before));
    expect(after).toMatchObject({ status: 'paused', lastError: null, failingSince: null });
    expect(after.pushedThrough).toBe(before.pushedThrough);
    expect(after).not.toHaveProperty('leaseOwner');
    expect(after).not.toHaveProperty('leaseUntil');
    expect(await runs.getWrittenKeys(ws.workspaceId, syncId)).toEqual(new Set());
    const entry = await doc.send(new GetCommand({ TableName: tableName, Key: keys.audit(ws.workspaceId, audit.id), ConsistentRead: true }));
    expect(entry.Item).toBeUndefined();
  });
});
