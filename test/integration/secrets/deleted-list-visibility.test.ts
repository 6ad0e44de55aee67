import { beforeAll, describe, expect, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

/** Hardening v1.3 (decisions.md) through the real routes: what a key may not read changes no page of the deleted list. */

let ws: Awaited<ReturnType<typeof newWorkspace>>;

const accessKey = async (permissions: unknown[]): Promise<string> => {
  const created = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'v13', permissions } });
  expect(created.status).toBe(201);
  return created.body.data.token;
};

beforeAll(async () => {
  ws = await newWorkspace();
});

describe('the deleted list: what a key may not read changes no page', () => {
  it('a key that reads none of five deleted secrets gets [] and hasMore false at limit 1; one that reads two pages them exactly', async () => {
    const gone = await newEnvironment(ws.apiKey, { project: 'gone', environment: 'dev' });
    const path = `/api/v1/environments/${gone.environment.id}/secrets`;
    for (const key of ['HIDDEN_1', 'SHOWN_1', 'HIDDEN_2', 'HIDDEN_3', 'SHOWN_2', 'HIDDEN_4', 'HIDDEN_5']) {
      const written = await call('PUT', path, { token: ws.apiKey, body: { key, value: 'x' } });
      expect((await call('DELETE', `/api/v1/secrets/${written.body.data.id}`, { token: ws.apiKey })).status).toBe(200);
    }
    const none = await accessKey([{ keys: ['NOTHING_*'], actions: ['read'] }]);
    for (const limit of [1, 2, 100]) {
      const page = await call('GET', `${path}/deleted?limit=${limit}`, { token: none });
      expect(page.status).toBe(200);
      expect(page.body.data).toEqual([]);
      expect(page.body.meta.page).toMatchObject({ hasMore: false, nextCursor: null });
    }
    const some = await accessKey([{ keys: ['SHOWN_*'], actions: ['read'] }]);
    const first = await call('GET', `${path}/deleted?limit=1`, { token: some });
    expect(first.body.data.map((item: { key: string }) => item.key)).toEqual(['SHOWN_2']);
    expect(first.body.meta.page.hasMore).toBe(true);
    const second = await call('GET', `${path}/deleted?limit=1&cursor=${encodeURIComponent(first.body.meta.page.nextCursor)}`, {
      token: some,
    });
    expect(second.body.data.map((item: { key: string }) => item.key)).toEqual(['SHOWN_1']);
    expect(second.body.meta.page).toMatchObject({ hasMore: false, nextCursor: null });
  });
});
