import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace, userToken } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * Change requests through the API (decisions.md v1.4, "Change requests"): proposed by one developer, never approved
 * by the same identity nor by a machine token, merged all at once or not at all.
 */

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let envId: string;
const people = {} as Record<'alice' | 'bob' | 'carol', string>;
let machine: string;

const secrets = () => `/api/v1/environments/${envId}/secrets`;
const put = (token: string, key: string, value: string) => call('PUT', secrets(), { token, body: { key, value } });
const propose = (token: string, body: Record<string, unknown>) =>
  call('POST', '/api/v1/change-requests', { token, body: { environmentId: envId, title: 'Rotate', ...body } });
const review = (token: string, id: string, decision = 'approve') =>
  call('POST', `/api/v1/change-requests/${id}/reviews`, { token, body: { decision } });
const merge = (token: string, id: string) => call('POST', `/api/v1/change-requests/${id}/merge`, { token });
const reveal = async (key: string) => {
  const list = await call('GET', `${secrets()}?limit=200`, { token: ws.apiKey });
  const secret = (list.body.data as { id: string; key: string; currentVersion: number }[]).find((s) => s.key === key);
  if (!secret) return undefined;
  return (await call('POST', `/api/v1/secrets/${secret.id}/reveal`, { token: ws.apiKey })).body.data as { value: string; version: number };
};

beforeAll(async () => {
  ws = await newWorkspace();
  ({
    environment: { id: envId },
  } = await newEnvironment(ws.apiKey, { project: 'cr', environment: 'prod' }));
  for (const name of ['alice', 'bob', 'carol'] as const)
    people[name] = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: 'developer' });
  machine = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'ci' } })).body.data.token;
});

describe('change requests', () => {
  it("refuses the author's own approval, and a merge after a direct write to one key: CONFLICT naming it, nothing changed", async () => {
    expect((await put(ws.apiKey, 'A1', 'one')).status).toBe(200);
    const opened = await propose(people.alice, {
      changes: [
        { key: 'A1', value: 'two' },
        { key: 'B1', value: 'new' },
      ],
    });
    expect(opened.status).toBe(201);
    expect(opened.body.data.changes).toEqual([
      { key: 'A1', action: 'set', baseVersion: 1 },
      { key: 'B1', action: 'set', baseVersion: 0 },
    ]);
    const id = opened.body.data.id as string;
    const own = await review(people.alice, id);
    expect([own.status, own.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect((await review(people.bob, id)).body.data.status).toBe('approved');
    expect((await put(people.carol, 'A1', 'direct')).body.data.version).toBe(2);

    const refused = await merge(people.alice, id);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'CONFLICT']);
    expect(refused.body.error.details).toEqual([{ key: 'A1', baseVersion: 1, currentVersion: 2 }]);
    expect(await reveal('A1')).toMatchObject({ value: 'direct', version: 2 });
    expect(await reveal('B1')).toBeUndefined();
    expect((await call('GET', `/api/v1/change-requests/${id}`, { token: people.bob })).body.data.status).toBe('approved');
  });

  it('lands every version in one transaction: a failing second write leaves the first unwritten; then both land, audited with changeRequestId', async () => {
    await put(ws.apiKey, 'A2', 'one');
    const b = (await put(ws.apiKey, 'B2', 'one')).body.data;
    const { id } = (
      await propose(people.alice, {
        changes: [
          { key: 'A2', value: 'two' },
          { key: 'B2', value: 'two' },
        ],
      })
    ).body.data;
    await review(people.bob, id);
    // B2's next version item, there already while its key item still says version 1: that one write must fail.
    const { doc, tableName } = localStore();
    const planted = keys.secretVersion(ws.workspaceId, b.id, 2);
    await doc.send(new PutCommand({ TableName: tableName, Item: { ...planted, type: 'SecretVersion', planted: true } }));
    const failed = await merge(people.alice, id);
    expect([failed.status, failed.body.error.code]).toEqual([409, 'CONFLICT']);
    expect(await reveal('A2')).toMatchObject({ value: 'one', version: 1 });

    await doc.send(new DeleteCommand({ TableName: tableName, Key: planted }));
    const merged = await merge(people.bob, id);
    expect([merged.status, merged.body.data.status]).toEqual([200, 'merged']);
    expect(await reveal('A2')).toMatchObject({ value: 'two', version: 2 });
    expect(await reveal('B2')).toMatchObject({ value: 'two', version: 2 });
    const audit = (await call('GET', '/api/v1/audit?action=secret.rotate&limit=50', { token: ws.apiKey })).body.data as {
      metadata: Record<string, unknown>;
    }[];
    const versions = audit.filter((entry) => entry.metadata.changeRequestId === id).map((entry) => entry.metadata.key);
    expect(versions.sort()).toEqual(['A2', 'B2']);
  });

  it('merges a delete with a set: the key is gone (restorable), audited secret.delete with changeRequestId', async () => {
    await put(ws.apiKey, 'D3', 'old');
    const { id } = (
      await propose(people.alice, {
        changes: [
          { key: 'D3', delete: true },
          { key: 'E3', value: 'e' },
        ],
      })
    ).body.data;
    await review(people.bob, id);
    expect((await merge(people.alice, id)).body.data.status).toBe('merged');
    expect(await reveal('D3')).toBeUndefined();
    expect(await reveal('E3')).toMatchObject({ value: 'e', version: 1 });
    const deleted = (await call('GET', `${secrets()}/deleted`, { token: ws.apiKey })).body.data as { key: string }[];
    expect(deleted.map((s) => s.key)).toContain('D3');
    const audit = (await call('GET', '/api/v1/audit?action=secret.delete&limit=50', { token: ws.apiKey })).body.data as {
      metadata: Record<string, unknown>;
    }[];
    expect(audit.filter((entry) => entry.metadata.changeRequestId === id).map((entry) => entry.metadata.key)).toEqual(['D3']);
  });

  it('merges 20 changes in one transaction, sets and then deletes (4 items each, entries packed per action); a restore brings one back', async () => {
    // Prepare: 20 keys, and a proposal to set each
    const keysOf = Array.from({ length: 20 }, (_, i) => `M${String(i).padStart(2, '0')}`);
    const ids: string[] = [];
    for (const key of keysOf) ids.push((await put(ws.apiKey, key, 'one')).body.data.id);
    const sets = (await propose(people.alice, { changes: keysOf.map((key) => ({ key, value: `two-${key}` })) })).body.data.id as string;
    await review(people.bob, sets);
    // The last key's next version item, there already: the whole merge must fail, the 19 others unwritten.
    const { doc, tableName } = localStore();
    const planted = keys.secretVersion(ws.workspaceId, ids[19]!, 2);
    await doc.send(new PutCommand({ TableName: tableName, Item: { ...planted, type: 'SecretVersion', planted: true } }));
    // Act, Assess: one transaction of all 20
    expect((await merge(people.alice, sets)).body.error.code).toBe('CONFLICT');
    expect(await reveal('M00')).toMatchObject({ value: 'one', version: 1 });
    await doc.send(new DeleteCommand({ TableName: tableName, Key: planted }));
    expect((await merge(people.alice, sets)).body.data.status).toBe('merged');
    for (const key of ['M00', 'M19']) expect(await reveal(key)).toMatchObject({ value: `two-${key}`, version: 2 });
    // Act: 20 deletes
    const deletes = (await propose(people.alice, { changes: keysOf.map((key) => ({ key, delete: true })) })).body.data.id as string;
    await review(people.bob, deletes);
    expect((await merge(people.alice, deletes)).body.data.status).toBe('merged');
    // Assess: every key gone and restorable, each version and delete audited with its request's id
    for (const key of keysOf) expect(await reveal(key)).toBeUndefined();
    const deleted = (await call('GET', `${secrets()}/deleted?limit=100`, { token: ws.apiKey })).body.data as { key: string }[];
    expect(deleted.map((s) => s.key).filter((key) => key.startsWith('M'))).toHaveLength(20);
    const audited = async (action: string, id: string) =>
      (
        (await call('GET', `/api/v1/audit?action=${action}&limit=100`, { token: ws.apiKey })).body.data as {
          metadata: Record<string, unknown>;
        }[]
      )
        .filter((entry) => entry.metadata.changeRequestId === id)
        .map((entry) => entry.metadata.key);
    expect((await audited('secret.rotate', sets)).sort()).toEqual(keysOf);
    expect((await audited('secret.delete', deletes)).sort()).toEqual(keysOf);
    expect((await call('POST', `/api/v1/secrets/${ids[0]}/restore`, { token: ws.apiKey })).status).toBe(200);
    expect(await reveal('M00')).toMatchObject({ value: 'two-M00', version: 2 });
    expect((await put(ws.apiKey, 'M01', 'anew')).body.data.version).toBe(1);
  });

  it("refuses a machine token's review (FORBIDDEN)", async () => {
    const { id } = (await propose(people.alice, { changes: [{ key: 'C', value: 'c' }] })).body.data;
    const refused = await review(machine, id);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('validates at the limits: title 1 to 200, description up to 4,000, 1 to 20 changes', async () => {
    const changes = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `K${i}`, value: 'v' }));
    const status = async (body: Record<string, unknown>) => (await propose(people.alice, { changes: changes(1), ...body })).status;
    expect(await status({ title: '' })).toBe(400);
    expect(await status({ title: 'x' })).toBe(201);
    expect(await status({ title: 'x'.repeat(200) })).toBe(201);
    expect(await status({ title: 'x'.repeat(201) })).toBe(400);
    expect(await status({ description: 'd'.repeat(4000) })).toBe(201);
    expect(await status({ description: 'd'.repeat(4001) })).toBe(400);
    expect(await status({ changes: [] })).toBe(400);
    expect(await status({ changes: changes(20) })).toBe(201);
    expect(await status({ changes: changes(21) })).toBe(400);
  });

  it('merges a value with references as any write stores it: resolved on reveal, in the reverse index; refuses one that does not parse', async () => {
    await put(ws.apiKey, 'REF_HOST', 'db.internal');
    const bad = await propose(people.alice, { changes: [{ key: 'REF_URL', value: 'postgres://${REF_HOST' }] });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(bad.body.error.message).toContain('changes[0].value');
    const { id } = (await propose(people.alice, { changes: [{ key: 'REF_URL', value: 'postgres://${REF_HOST}/app' }] })).body.data;
    expect((await review(people.bob, id)).body.data.status).toBe('approved');
    expect((await merge(people.alice, id)).status).toBe(200);
    expect(await reveal('REF_URL')).toMatchObject({ value: 'postgres://db.internal/app', version: 1 });
    const list = (await call('GET', `${secrets()}?limit=200`, { token: ws.apiKey })).body.data as { id: string; key: string }[];
    const [url, host] = ['REF_URL', 'REF_HOST'].map((key) => list.find((s) => s.key === key)!.id);
    expect((await call('GET', `/api/v1/secrets/${url}`, { token: ws.apiKey })).body.data.references).toEqual(['cr/prod/REF_HOST']);
    expect((await call('GET', `/api/v1/secrets/${host}`, { token: ws.apiKey })).body.data.referencedBy).toEqual([url]);
  });
});
