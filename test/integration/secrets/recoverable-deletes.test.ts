import { beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../shared/platform/store/keys.ts';
import { newId } from '../../../shared/platform/ids.ts';
import { makeDeletedSecretService } from '../../../shared/secrets/deleted-secret-service.ts';
import { makePurgeService, PURGE_GRACE_MS } from '../../../shared/secrets/index.ts';
import { makePurgeStore } from '../../../shared/secrets/purge-store.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { apiKeyPrincipal, newEnvironment } from '../../support/secrets.ts';

/**
 * Recoverable deletes (decisions.md, "Recoverable deletes") against DynamoDB Local: a delete hides the secret at once
 * and frees its key, the environment lists it with its purgeAt, a restore brings it back whole, and the window's end
 * (a test clock, before anything purges it) makes it gone.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let ws: Ws;
let env: { project: { id: string; slug: string }; environment: { id: string; slug: string } };
let made = 0;

const secretsPath = () => `/api/v1/environments/${env.environment.id}/secrets`;
/** A secret with two versions, under a key no other test uses. */
async function twoVersions(token = ws.apiKey) {
  const key = `DEL_${++made}`;
  await call('PUT', secretsPath(), { token, body: { key, value: 'first' } });
  const second = await call('PUT', secretsPath(), { token, body: { key, value: 'second' } });
  return { id: second.body.data.id as string, key };
}
const versionItems = async (secretId: string) => {
  const { doc, tableName } = localStore();
  const out = await doc.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': `WS#${ws.workspaceId}#SEC#${secretId}` },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
};

/** What is at a secret's head key: the head, its deleted record (`SecretPurge`) once deleted, or nothing once purged. */
const atHead = async (secretId: string) => {
  const { doc, tableName } = localStore();
  return (await doc.send(new GetCommand({ TableName: tableName, Key: keys.secretHead(ws.workspaceId, secretId), ConsistentRead: true })))
    .Item;
};

beforeAll(async () => {
  ws = await newWorkspace();
  env = await newEnvironment(ws.apiKey, { project: 'recovery', environment: 'prod' });
});

describe('recoverable deletes', () => {
  it('hides a deleted secret from every lookup at once, lists it with purgeAt, and restores it whole', async () => {
    const secret = await twoVersions();
    const before = Date.now();
    expect((await call('DELETE', `/api/v1/secrets/${secret.id}`, { token: ws.apiKey })).body.data).toEqual({
      id: secret.id,
      deleted: true,
    });
    for (const [method, path, body] of [
      ['POST', `/api/v1/secrets/${secret.id}/reveal`, undefined],
      ['POST', '/api/v1/reveal', { path: `recovery/prod/${secret.key}` }],
      ['GET', `/api/v1/secrets/${secret.id}/versions`, undefined],
      ['POST', `/api/v1/secrets/${secret.id}/rollback`, { version: 1 }],
      ['DELETE', `/api/v1/secrets/${secret.id}`, undefined],
    ] as const) {
      expect({ path, status: (await call(method, path, { token: ws.apiKey, body })).status }).toEqual({ path, status: 404 });
    }
    expect((await call('GET', secretsPath(), { token: ws.apiKey })).body.data.map((s: { key: string }) => s.key)).not.toContain(secret.key);
    expect((await call('GET', `/api/v1/search/secrets?q=${secret.key}`, { token: ws.apiKey })).body.data).toEqual([]);
    const listed = (await call('GET', `${secretsPath()}/deleted`, { token: ws.apiKey })).body.data.find(
      (s: { id: string }) => s.id === secret.id,
    );
    expect(listed).toEqual({
      id: secret.id,
      key: secret.key,
      currentVersion: 2,
      deletedAt: expect.any(String),
      deletedBy: ws.apiKeyId,
      purgeAt: expect.any(String),
    });
    const window = Date.parse(listed.purgeAt) - Date.parse(listed.deletedAt);
    expect(window).toBe(7 * 86_400_000);
    expect(Date.parse(listed.deletedAt)).toBeGreaterThanOrEqual(before - 1000);
    // Restore: the same id, both versions, the value of the current one.
    const restored = await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey });
    expect(restored).toMatchObject({ status: 200, body: { data: { id: secret.id, key: secret.key, version: 2 } } });
    expect((await call('POST', `/api/v1/secrets/${secret.id}/reveal`, { token: ws.apiKey })).body.data.value).toBe('second');
    expect(
      (await call('GET', `/api/v1/secrets/${secret.id}/versions`, { token: ws.apiKey })).body.data.map(
        (v: { version: number }) => v.version,
      ),
    ).toEqual([2, 1]);
    expect((await call('GET', `${secretsPath()}/deleted`, { token: ws.apiKey })).body.data.map((s: { id: string }) => s.id)).not.toContain(
      secret.id,
    );
    expect((await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey })).status).toBe(404);
    const audit = (await call('GET', `/api/v1/audit?target=${secret.id}&action=secret.restore`, { token: ws.apiKey })).body.data;
    expect(audit).toEqual([
      expect.objectContaining({ action: 'secret.restore', metadata: expect.objectContaining({ key: secret.key, version: 2 }) }),
    ]);
  });

  it('frees the key at once: a new secret of it is written, and a restore is then CONFLICT until that one goes', async () => {
    const secret = await twoVersions();
    await call('DELETE', `/api/v1/secrets/${secret.id}`, { token: ws.apiKey });
    const reborn = await call('PUT', secretsPath(), { token: ws.apiKey, body: { key: secret.key, value: 'new' } });
    expect(reborn.body.data).toMatchObject({ key: secret.key, version: 1 });
    expect(reborn.body.data.id).not.toBe(secret.id);
    const conflict = await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(secret.key) });
    await call('DELETE', `/api/v1/secrets/${reborn.body.data.id}?recoveryWindowDays=0`, { token: ws.apiKey });
    expect((await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey })).status).toBe(200);
  });

  it('a delete sent with a head read before the secret was deleted and its key taken again changes nothing', async () => {
    // Prepare: the head as a racing delete read it, then the secret deleted and a new one written at its key
    const secret = await twoVersions();
    const { store } = localStore();
    const stale = (await store.getSecretHead(ws.workspaceId, secret.id))!;
    await call('DELETE', `/api/v1/secrets/${secret.id}`, { token: ws.apiKey });
    const reborn = (await call('PUT', secretsPath(), { token: ws.apiKey, body: { key: secret.key, value: 'new' } })).body.data;
    const entry = {
      id: `aud_${'0'.repeat(10)}${String(Date.now()).padStart(16, '0')}`,
      action: 'secret.delete' as const,
      actorSub: 'x',
      target: secret.id,
      metadata: {},
      createdAt: new Date().toISOString(),
    };
    // Act: its head is the deleted record now, so the delete must not write its record and marker over the new secret's
    const late = await store
      .deleteSecret(ws.workspaceId, stale, entry, { deletedBy: 'x', purgeAt: new Date(Date.now() + 86_400_000).toISOString() })
      .catch((error: Error) => error);
    // Assess
    expect(late).toMatchObject({ code: 'NOT_FOUND' });
    expect(
      (await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: `recovery/prod/${secret.key}` } })).body.data,
    ).toMatchObject({ id: reborn.id, value: 'new' });
    expect((await atHead(secret.id))?.type).toBe('SecretPurge');
  });

  it('purges at once with recoveryWindowDays=0: no version left, nothing to list or restore', async () => {
    const secret = await twoVersions();
    expect((await call('DELETE', `/api/v1/secrets/${secret.id}?recoveryWindowDays=0`, { token: ws.apiKey })).status).toBe(200);
    expect(await versionItems(secret.id)).toEqual([]);
    expect((await call('GET', `${secretsPath()}/deleted`, { token: ws.apiKey })).body.data.map((s: { id: string }) => s.id)).not.toContain(
      secret.id,
    );
    expect((await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey })).status).toBe(404);
  });

  it('takes recoveryWindowDays 0 and 7 to 30, and refuses 1 to 6, 31 and what is not an integer', async () => {
    for (const days of ['0', '7', '30']) {
      const secret = await twoVersions();
      expect({
        days,
        status: (await call('DELETE', `/api/v1/secrets/${secret.id}?recoveryWindowDays=${days}`, { token: ws.apiKey })).status,
      }).toEqual({ days, status: 200 });
    }
    const secret = await twoVersions();
    for (const days of ['1', '6', '31', '7.5', '-7', 'seven', '']) {
      const answer = await call('DELETE', `/api/v1/secrets/${secret.id}?recoveryWindowDays=${days}`, { token: ws.apiKey });
      expect({ days, status: answer.status, code: answer.body.error?.code }).toEqual({ days, status: 400, code: 'VALIDATION_ERROR' });
      expect(answer.body.error.message).toMatch(/^recoveryWindowDays: /);
    }
    expect((await call('POST', `/api/v1/secrets/${secret.id}/reveal`, { token: ws.apiKey })).status).toBe(200);
  });

  it('is gone past purgeAt even while its items remain, and the store purges it then', async () => {
    const secret = await twoVersions();
    await call('DELETE', `/api/v1/secrets/${secret.id}`, { token: ws.apiKey });
    const { store } = localStore();
    const principal = apiKeyPrincipal(ws);
    const later = makeDeletedSecretService({ store, clock: { now: () => Date.now() + 7 * 86_400_000 + 60_000 } });
    await expect(later.restore(principal, secret.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await later.list(principal, env.environment.id, { limit: 200 })).items.map((s) => s.id)).not.toContain(secret.id);
    // Its two versions in its partition, its deleted record at its head's key.
    expect((await versionItems(secret.id)).length).toBe(2);
    expect(await atHead(secret.id)).toMatchObject({ type: 'SecretPurge', secretId: secret.id });
    // The purger's query finds it once its window has ended, and the purge removes every item of it.
    const due = await store.pendingPurges(new Date(Date.now() + 8 * 86_400_000).toISOString(), 10_000);
    expect(due).toContainEqual({ workspaceId: ws.workspaceId, secretId: secret.id });
    expect(await store.pendingPurges(new Date().toISOString(), 10_000)).not.toContainEqual({
      workspaceId: ws.workspaceId,
      secretId: secret.id,
    });
    expect(await store.purgeSecretVersions(ws.workspaceId, secret.id)).toBe(2);
    expect(await versionItems(secret.id)).toEqual([]);
    expect(await atHead(secret.id)).toBeUndefined();
    expect((await call('GET', `${secretsPath()}/deleted`, { token: ws.apiKey })).body.data.map((s: { id: string }) => s.id)).not.toContain(
      secret.id,
    );
  });

  it('is purged by the purger once its window and the grace period have passed, list item and record too', async () => {
    // Prepare: the shortest window there is
    const secret = await twoVersions();
    expect((await call('DELETE', `/api/v1/secrets/${secret.id}?recoveryWindowDays=7`, { token: ws.apiKey })).status).toBe(200);
    const listed = (await call('GET', `${secretsPath()}/deleted`, { token: ws.apiKey })).body.data.find(
      (s: { id: string }) => s.id === secret.id,
    );
    const purgeAt = Date.parse(listed.purgeAt);
    const { doc, tableName } = localStore();
    // The real store and service, kept to this workspace: a clock a week ahead must not purge other test files' secrets.
    const purges = makePurgeStore({ doc, tableName });
    const ours = async (before: string) => (await purges.pendingPurges(before, 10_000)).filter((due) => due.workspaceId === ws.workspaceId);
    const purgerAt = (now: number) => makePurgeService({ store: { ...purges, pendingPurges: ours }, clock: { now: () => now } });
    const listItems = async () =>
      (
        await doc.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
            ExpressionAttributeValues: { ':pk': `WS#${ws.workspaceId}`, ':sk': `DEL#${env.environment.id}#` },
            ConsistentRead: true,
          }),
        )
      ).Items?.filter((item) => item.id === secret.id) ?? [];
    expect(await listItems()).toHaveLength(1);
    // Act: a run within the grace period leaves it, a run after purges it
    await purgerAt(purgeAt + PURGE_GRACE_MS - 60_000).purgeDue();
    const before = (await versionItems(secret.id)).length;
    const run = await purgerAt(purgeAt + PURGE_GRACE_MS + 60_000).purgeDue();
    // Assess
    expect(before).toBe(2);
    expect(run.purged).toBeGreaterThanOrEqual(1);
    expect(await versionItems(secret.id)).toEqual([]);
    expect(await atHead(secret.id)).toBeUndefined();
    expect(await listItems()).toEqual([]);
    expect((await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: ws.apiKey })).status).toBe(404);
  });

  it("answers NOT_FOUND for another workspace's deleted secret, and FORBIDDEN to a key that may read but not delete", async () => {
    const secret = await twoVersions();
    await call('DELETE', `/api/v1/secrets/${secret.id}`, { token: ws.apiKey });
    const other = await newWorkspace();
    expect((await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: other.apiKey })).status).toBe(404);
    expect((await call('POST', `/api/v1/secrets/${newId('secret')}/restore`, { token: ws.apiKey })).status).toBe(404);
    const reader = (
      await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'reader', permissions: [{ actions: ['read'] }] } })
    ).body.data.token;
    const forbidden = await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: reader });
    expect(forbidden.status).toBe(403);
    const blind = (
      await call('POST', '/api/v1/access-keys', {
        token: ws.apiKey,
        body: { name: 'blind', permissions: [{ keys: ['NONE_*'], actions: ['delete'] }] },
      })
    ).body.data.token;
    expect((await call('POST', `/api/v1/secrets/${secret.id}/restore`, { token: blind })).status).toBe(404);
    expect((await call('GET', `${secretsPath()}/deleted`, { token: blind })).body.data).toEqual([]);
  });
});
