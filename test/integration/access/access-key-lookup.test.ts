import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { call, newWorkspace, userToken } from '../../support/api.ts';

/**
 * `GET /api/v1/access-keys/{id}` (decisions.md, "Lookups by id"): the list's record, never a token; the list route's
 * rules: a machine token, scoped or not, is FORBIDDEN (as on the list); another workspace's key or an unknown id is
 * NOT_FOUND.
 */

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let other: Awaited<ReturnType<typeof newWorkspace>>;
/** A key with rules, networks and an expiry, never used: its record does not change while the test reads it. */
let keyId: string;
let machineToken: string;
let scopedToken: string;

const createKey = async (body: Record<string, unknown>) => {
  const answer = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body });
  expect(answer.status).toBe(201);
  return answer.body.data;
};
const lookup = (id: string, token: string) => call('GET', `/api/v1/access-keys/${id}`, { token });

beforeAll(async () => {
  [ws, other] = await Promise.all([newWorkspace(), newWorkspace()]);
  keyId = (
    await createKey({
      name: 'deploy',
      expiresInDays: 30,
      permissions: [
        { projects: ['api'], actions: ['read', 'reveal'] },
        { effect: 'deny', keys: ['ADMIN_*'], actions: ['reveal'] },
      ],
      allowedCidrs: ['203.0.113.0/24'],
    })
  ).id;
  machineToken = (await createKey({ name: 'default rules' })).token;
  scopedToken = (await createKey({ name: 'scoped', permissions: [{ projects: ['api'], actions: ['read'] }] })).token;
});

describe('GET /api/v1/access-keys/{id}', () => {
  it('answers the same record as the list item, without a token', async () => {
    // Act
    const found = await lookup(keyId, ws.apiKey);
    const list = await call('GET', '/api/v1/access-keys?limit=200', { token: ws.apiKey });
    // Assess
    expect(found.status).toBe(200);
    expect(found.body.data).toEqual(list.body.data.find((item: { id: string }) => item.id === keyId));
    expect(found.body.data).not.toHaveProperty('token');
  });

  it('answers a revoked key as the list does, with its status', async () => {
    const revoked = await createKey({ name: 'gone' });
    await call('POST', `/api/v1/access-keys/${revoked.id}/revoke`, { token: ws.apiKey });
    const found = await lookup(revoked.id, ws.apiKey);
    const list = await call('GET', '/api/v1/access-keys?limit=200', { token: ws.apiKey });
    expect(found.body.data).toMatchObject({ status: 'revoked' });
    expect(found.body.data).toEqual(list.body.data.find((item: { id: string }) => item.id === revoked.id));
  });

  it("is NOT_FOUND for another workspace's key and for an unknown id", async () => {
    expect((await lookup(keyId, other.apiKey)).body.error.code).toBe('NOT_FOUND');
    expect((await lookup(newId('accessKey'), ws.apiKey)).body.error.code).toBe('NOT_FOUND');
  });

  it('is FORBIDDEN to machine tokens, scoped or not, and to a developer, as the list is', async () => {
    const developer = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: 'developer' });
    for (const token of [machineToken, scopedToken, developer]) {
      const [one, list] = await Promise.all([lookup(keyId, token), call('GET', '/api/v1/access-keys', { token })]);
      expect([one.status, one.body.error?.code]).toEqual([403, 'FORBIDDEN']);
      expect([list.status, list.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    }
  });

  it('is answered to a person with the admin role', async () => {
    const person = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: ['admin'] });
    expect((await lookup(keyId, person)).body.data).toEqual((await lookup(keyId, ws.apiKey)).body.data);
  });
});
