import { beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

describe('version history and rollback', () => {
  let ws: Ws;
  let envId: string;
  const put = (key: string, value: string, headers: Record<string, string> = {}) =>
    call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value }, headers });
  const rollback = (id: string, version: unknown, headers: Record<string, string> = {}) =>
    call('POST', `/api/v1/secrets/${id}/rollback`, { token: ws.apiKey, body: { version }, headers });
  const reveal = async (id: string) => (await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey })).body.data;

  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'history', environment: 'prod' })).environment.id;
  });

  it('lists versions newest first, in numeric order past 9, 99 and 999 (zero-padded sort keys), page by page, never a value', async () => {
    // Prepare: 12 versions
    let id = '';
    for (let v = 1; v <= 12; v++) id = (await put('LONG_HISTORY', `value-${v}`)).body.data.id;
    // Act
    const first = await call('GET', `/api/v1/secrets/${id}/versions?limit=5`, { token: ws.apiKey });
    const rest = await call(
      'GET',
      `/api/v1/secrets/${id}/versions?limit=200&cursor=${encodeURIComponent(first.body.meta.page.nextCursor)}`,
      { token: ws.apiKey },
    );
    // Assess
    const versions = [...first.body.data, ...rest.body.data].map((entry: { version: number }) => entry.version);
    expect(versions).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(first.body.data[0]).toEqual({
      version: 12,
      createdAt: expect.any(String),
      createdBy: ws.apiKeyId,
      rolledBackFrom: null,
      // As the AWS API names the version: derived from the secret id and number, and its staging label.
      versionId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-00000000000c$/),
      stages: ['AWSCURRENT'],
    });
    expect(JSON.stringify([first.body, rest.body])).not.toContain('value-');
    const { keys } = await import('../../../shared/platform/store/keys.ts');
    const sk = (version: number) => keys.secretVersion('w', 's', version).SK;
    expect([sk(9) < sk(10), sk(99) < sk(100), sk(999) < sk(1000)]).toEqual([true, true, true]);
  });

  it("rolls back: version N's value becomes the next version, audited as secret.rotate with rolledBackFrom, no value in the answer", async () => {
    // Prepare
    const id = (await put('DB_PASSWORD', 'good')).body.data.id;
    await put('DB_PASSWORD', 'bad');
    // Act
    const answer = await rollback(id, 1);
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ id, key: 'DB_PASSWORD', version: 3 });
    expect(JSON.stringify(answer.body)).not.toContain('good');
    expect(await reveal(id)).toMatchObject({ version: 3, value: 'good' });
    const history = (await call('GET', `/api/v1/secrets/${id}/versions`, { token: ws.apiKey })).body.data;
    expect(history.map((entry: { version: number; rolledBackFrom: number | null }) => [entry.version, entry.rolledBackFrom])).toEqual([
      [3, 1],
      [2, null],
      [1, null],
    ]);
    const audit = (await localStore().store.listAudit(ws.workspaceId, { limit: 10 }, { target: id, action: 'secret.rotate' })).items[0]!;
    expect(audit.metadata).toMatchObject({ version: 3, rolledBackFrom: 1, key: 'DB_PASSWORD' });
    expect(JSON.stringify(audit)).not.toContain('good');
  });

  it("is NOT_FOUND for a version that does not exist or another workspace's secret, CONFLICT for a stale If-Match, VALIDATION_ERROR for a bad version", async () => {
    const id = (await put('ROLL_EDGES', 'a')).body.data.id;
    await put('ROLL_EDGES', 'b');
    expect((await rollback(id, 3)).body.error.code).toBe('NOT_FOUND');
    expect((await rollback(id, 1, { 'if-match': '1' })).body.error.code).toBe('CONFLICT');
    expect((await rollback(id, 1, { 'if-match': '2' })).body.data.version).toBe(3);
    expect((await rollback(id, 0)).body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'version: must be at least 1' });
    expect((await rollback(id, '1')).body.error.code).toBe('VALIDATION_ERROR');
    const other = await newWorkspace();
    expect((await call('POST', `/api/v1/secrets/${id}/rollback`, { token: other.apiKey, body: { version: 1 } })).body.error.code).toBe(
      'NOT_FOUND',
    );
    expect((await call('GET', `/api/v1/secrets/${id}/versions`, { token: other.apiKey })).body.error.code).toBe('NOT_FOUND');
  });

  it('20 concurrent rollbacks and writes of one key make consecutive versions with no gap and no duplicate', async () => {
    // Prepare
    const id = (await put('RACED', 'v1')).body.data.id;
    // Act
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? rollback(id, 1) : put('RACED', `w${i}`))));
    // Assess
    const versions = answers.map((answer) => answer.body.data.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const history = (await call('GET', `/api/v1/secrets/${id}/versions?limit=200`, { token: ws.apiKey })).body.data;
    expect(history).toHaveLength(21);
  });
});
