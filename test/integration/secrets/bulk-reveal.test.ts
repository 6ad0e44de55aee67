import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../../shared/platform/errors.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment, secretServiceWith } from '../../support/secrets.ts';
import { API_KEY_AUTHORITY } from '../../../shared/access/permissions.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

describe('loading an environment (bulk reveal)', () => {
  let ws: Ws;
  let envId: string;
  const load = (body?: unknown, query = '', token?: string) =>
    call('POST', `/api/v1/environments/${envId}/secrets/reveal${query}`, {
      token: token ?? ws.apiKey,
      ...(body === undefined ? {} : { body }),
    });

  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'bulk', environment: 'prod' })).environment.id;
    for (let i = 0; i < 105; i++) {
      const key = `KEY_${String(i).padStart(3, '0')}`;
      await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value: `value-${i}` } });
    }
  });

  it('reads the path items: a value item an earlier release left is ignored, a deleted or valueless secret never answered', async () => {
    // Prepare: an environment as an earlier release left it (value items, one stale, one of a secret deleted since),
    // and a secret without a value (as the AWS API's CreateSecret without a value makes it: a path item without `sealed`)
    const { doc, tableName } = localStore();
    const old = await newEnvironment(ws.apiKey, { project: 'bulk-old', environment: 'prod' });
    const oldId = old.environment.id;
    const written: Record<string, string> = {};
    for (const key of ['A', 'B', 'C', 'GONE']) {
      written[key] = (
        await call('PUT', `/api/v1/environments/${oldId}/secrets`, { token: ws.apiKey, body: { key, value: `v-${key}` } })
      ).body.data.id;
    }
    await call('PUT', `/api/v1/environments/${oldId}/secrets`, { token: ws.apiKey, body: { key: 'B', value: 'v-B2' } });
    await call('DELETE', `/api/v1/secrets/${written.GONE}`, { token: ws.apiKey });
    const valueItem = (key: string, version: number) => ({
      ...keys.environmentValue(ws.workspaceId, oldId, key),
      type: 'EnvironmentValue',
      id: written[key],
      key,
      version,
      sealed: { stale: true },
    });
    for (const item of [valueItem('B', 1), valueItem('GONE', 1)]) await doc.send(new PutCommand({ TableName: tableName, Item: item }));
    const valueless = { id: 'sec_valueless', key: 'EMPTY', currentVersion: 0, environmentId: oldId, type: 'SecretPath' };
    await doc.send(
      new PutCommand({ TableName: tableName, Item: { ...keys.secretPath(ws.workspaceId, 'bulk-old/prod/EMPTY'), ...valueless } }),
    );
    // Act
    const first = await call('POST', `/api/v1/environments/${oldId}/secrets/reveal`, { token: ws.apiKey });
    const again = await call('POST', `/api/v1/environments/${oldId}/secrets/reveal`, { token: ws.apiKey, body: { keys: ['B'] } });
    // Assess
    expect(first.body.data.map((s: { key: string; version: number; value: string }) => [s.key, s.version, s.value])).toEqual([
      ['A', 1, 'v-A'],
      ['B', 2, 'v-B2'],
      ['C', 1, 'v-C'],
    ]);
    expect(again.body.data.map((s: { value: string }) => s.value)).toEqual(['v-B2']);
  });

  it('answers every current value by key, 100 a page by default, following the cursor; no body and {} alike', async () => {
    // Act
    const first = await load();
    const second = await load({}, `?cursor=${encodeURIComponent(first.body.meta.page.nextCursor)}`);
    // Assess
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(100);
    expect(first.body.data[0]).toEqual({ id: expect.stringMatching(/^sec_/), key: 'KEY_000', version: 1, value: 'value-0' });
    expect(first.body.meta.page).toMatchObject({ limit: 100, hasMore: true });
    expect(second.body.data.map((s: { key: string }) => s.key)).toEqual(['KEY_100', 'KEY_101', 'KEY_102', 'KEY_103', 'KEY_104']);
    expect(second.body.meta.page).toEqual({ limit: 100, nextCursor: null, hasMore: false });
  });

  it('takes 1 and 100 keys, refuses 0 and 101, and leaves out a listed key that does not exist', async () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `KEY_${String(i).padStart(3, '0')}`);
    expect((await load({ keys: ['KEY_007'] })).body.data).toEqual([expect.objectContaining({ key: 'KEY_007', value: 'value-7' })]);
    expect((await load({ keys: keys(100) })).body.data).toHaveLength(100);
    expect((await load({ keys: [] })).body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'keys: must be at least 1 item' });
    expect((await load({ keys: [...keys(100), 'KEY_100'] })).body.error.message).toBe('keys: must be at most 100 items');
    expect((await load({ keys: ['KEY_001', 'KEY_001'] })).body.error.message).toBe('keys: must not repeat a key');
    expect((await load({ keys: ['KEY_001', 'NOPE'] })).body.data.map((s: { key: string }) => s.key)).toEqual(['KEY_001']);
    expect((await load(undefined, '?limit=101')).body.error.message).toBe('limit: must be at most 100');
  });

  it('writes one secret.reveal audit entry (bulk: true) per secret in the answer, none for what it left out', async () => {
    // Prepare
    const fresh = await newWorkspace();
    const env = (await newEnvironment(fresh.apiKey, { project: 'audited', environment: 'prod' })).environment.id;
    for (const key of ['A', 'B', 'C'])
      await call('PUT', `/api/v1/environments/${env}/secrets`, { token: fresh.apiKey, body: { key, value: key } });
    // Act
    await call('POST', `/api/v1/environments/${env}/secrets/reveal`, { token: fresh.apiKey, body: { keys: ['A', 'C'] } });
    // Assess
    const entries = (await localStore().store.listAudit(fresh.workspaceId, { limit: 50 }, { action: 'secret.reveal' })).items;
    expect(entries.map((e) => e.metadata.key).sort()).toEqual(['A', 'C']);
    for (const entry of entries)
      expect(entry.metadata).toMatchObject({ bulk: true, version: 1, environmentId: env, credentialKind: 'api_key' });
  });

  it('ends a page before its values pass 4 MiB: 80 values of 64 KiB come as 64 and 16', async () => {
    const fresh = await newWorkspace();
    const env = (await newEnvironment(fresh.apiKey, { project: 'large', environment: 'prod' })).environment.id;
    const value = 'x'.repeat(65_536);
    for (let i = 0; i < 80; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          call('PUT', `/api/v1/environments/${env}/secrets`, {
            token: fresh.apiKey,
            body: { key: `BIG_${String(i + j).padStart(2, '0')}`, value },
          }),
        ),
      );
    }
    const first = await call('POST', `/api/v1/environments/${env}/secrets/reveal`, { token: fresh.apiKey });
    const second = await call(
      'POST',
      `/api/v1/environments/${env}/secrets/reveal?cursor=${encodeURIComponent(first.body.meta.page.nextCursor)}`,
      { token: fresh.apiKey },
    );
    expect([first.body.data.length, second.body.data.length]).toEqual([64, 16]);
    expect(first.body.data.at(-1).key).toBe('BIG_63');
    expect(second.body.data[0].key).toBe('BIG_64');
    expect(second.body.meta.page.hasMore).toBe(false);
  });

  it('counts a page as one reveal against the limit, and returns no value when the audit entries cannot be written', async () => {
    const { workspace, principal } = await principalOf(ws);
    const limited = secretServiceWith({}, 2);
    await limited.revealEnvironment(principal, envId, { keys: ['KEY_001', 'KEY_002', 'KEY_003'] }, { limit: 100 });
    await limited.revealEnvironment(principal, envId, {}, { limit: 100 });
    await expect(limited.revealEnvironment(principal, envId, {}, { limit: 100 })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    let decrypted = false;
    const failing = secretServiceWith({ writeAuditEntries: async () => Promise.reject(new ServiceUnavailableError()) });
    const answer = failing
      .revealEnvironment({ ...principal, credentialId: 'key_other' }, envId, {}, { limit: 5 })
      .then((page) => ((decrypted = true), page));
    await expect(answer).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(decrypted).toBe(false);
    expect(workspace).toBeDefined();
  });

  it('refuses an Idempotency-Key on every reveal route: a value is never replayed from storage', async () => {
    const message = 'Idempotency-Key: is not accepted on a reveal route (a value is never replayed from storage)';
    const headers = { 'idempotency-key': 'k1' };
    const secretId = (await load({ keys: ['KEY_001'] })).body.data[0].id;
    for (const [path, body] of [
      [`/api/v1/environments/${envId}/secrets/reveal`, {}],
      [`/api/v1/secrets/${secretId}/reveal`, undefined],
      ['/api/v1/reveal', { path: 'bulk/prod/KEY_001' }],
    ] as const) {
      const answer = await call('POST', path, { token: ws.apiKey, headers, ...(body === undefined ? {} : { body }) });
      expect(answer.body.error, path).toEqual({ code: 'VALIDATION_ERROR', message });
    }
  });

  it("answers NOT_FOUND for another workspace's environment", async () => {
    const other = await newWorkspace();
    expect((await load(undefined, '', other.apiKey)).body.error.code).toBe('NOT_FOUND');
  });
});

async function principalOf(ws: Ws) {
  const workspace = await localStore().store.getWorkspace(ws.workspaceId);
  return {
    workspace,
    principal: {
      workspaceId: ws.workspaceId,
      accountId: workspace!.accountId,
      kind: 'api_key' as const,
      actorSub: ws.apiKeyId,
      credentialId: `${ws.apiKeyId}-bulk`,
      authority: API_KEY_AUTHORITY,
    },
  };
}
