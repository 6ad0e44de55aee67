import { CreateSecretCommand, GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../shared/platform/store/keys.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from '../aws/support.ts';

/**
 * Secret references end to end (decisions.md v1.4, "Secret references"): a write checks them; a reveal by REST or by
 * the AWS API's GetSecretValue resolves them, each target revealed being its own audit entry with `via`; a caller
 * that may not reveal a target gets 409 with `details` and no value; `?raw=true` answers the text; a cycle is 409.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let ws: Ws;
let prod: Awaited<ReturnType<typeof newEnvironment>>;
let shared: { id: string };
const ids: Record<string, string> = {};

const put = async (envId: string, key: string, value: string) => {
  const answer = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } });
  expect(answer.status).toBe(200);
  return answer.body.data.id as string;
};
const reveals = async (target: string) =>
  (await localStore().store.listAudit(ws.workspaceId, { limit: 100 }, { target, action: 'secret.reveal' })).items;

beforeAll(async () => {
  ws = await newWorkspace();
  prod = await newEnvironment(ws.apiKey, { project: 'app', environment: 'prod' });
  const created = await call('POST', `/api/v1/projects/${prod.project.id}/environments`, { token: ws.apiKey, body: { name: 'shared' } });
  shared = created.body.data;
  ids.USER = await put(prod.environment.id, 'DB_USER', 'alice');
  ids.HOST = await put(shared.id, 'DB_HOST', 'db.internal');
  ids.URL = await put(prod.environment.id, 'DB_URL', 'postgres://${DB_USER}@${shared.DB_HOST}/app');
});

describe('a value with references', () => {
  it('resolves through REST by id and by path, each target revealed one audit entry with via', async () => {
    // Act
    const byId = await call('POST', `/api/v1/secrets/${ids.URL}/reveal`, { token: ws.apiKey });
    const byPath = await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'app/prod/DB_URL' } });

    // Assess
    expect(byId.body.data).toEqual({ key: 'DB_URL', version: 1, value: 'postgres://alice@db.internal/app' });
    expect(byPath.body.data.value).toBe('postgres://alice@db.internal/app');
    for (const target of [ids.USER!, ids.HOST!]) {
      const entries = await reveals(target);
      expect(entries).toHaveLength(2);
      expect(entries.map((entry) => entry.metadata.via)).toEqual([ids.URL, ids.URL]);
    }
    expect((await reveals(ids.URL!)).map((entry) => entry.metadata.via)).toEqual([undefined, undefined]);
  });

  it("resolves through the AWS API's GetSecretValue (the AWS SDK for JavaScript)", async () => {
    const sm = client(await awsKey(ws));
    const got = await sm.send(new GetSecretValueCommand({ SecretId: 'app/prod/DB_URL' }));
    expect(got.SecretString).toBe('postgres://alice@db.internal/app');
    expect((await reveals(ids.HOST!)).filter((entry) => entry.metadata.via === ids.URL)).toHaveLength(3);
  });

  it('answers the text as written with ?raw=true on both routes, auditing no target', async () => {
    const before = (await reveals(ids.USER!)).length;
    const byId = await call('POST', `/api/v1/secrets/${ids.URL}/reveal?raw=true`, { token: ws.apiKey });
    const byPath = await call('POST', '/api/v1/reveal?raw=true', { token: ws.apiKey, body: { path: 'app/prod/DB_URL' } });
    expect([byId.body.data.value, byPath.body.data.value]).toEqual([
      'postgres://${DB_USER}@${shared.DB_HOST}/app',
      'postgres://${DB_USER}@${shared.DB_HOST}/app',
    ]);
    expect(await reveals(ids.USER!)).toHaveLength(before);
  });

  it('a scoped key that may reveal DB_URL but not DB_USER gets 409 with details and no value, no target audited', async () => {
    // Prepare
    const permissions = [
      { actions: ['read'] },
      { projects: ['app'], environments: ['prod'], keys: ['DB_URL'], actions: ['reveal'] },
      { projects: ['app'], environments: ['shared'], keys: ['DB_HOST'], actions: ['reveal'] },
    ];
    const created = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'narrow', permissions } });
    const before = (await reveals(ids.HOST!)).length;

    // Act
    const answer = await call('POST', `/api/v1/secrets/${ids.URL}/reveal`, { token: created.body.data.token });

    // Assess
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'CONFLICT', details: [{ reference: 'DB_USER', reason: 'unresolvable' }] });
    expect(JSON.stringify(answer.body)).not.toContain('alice');
    expect(JSON.stringify(answer.body)).not.toContain('db.internal');
    expect(await reveals(ids.HOST!)).toHaveLength(before);
  });

  it('a cycle is 409 cycle, by REST and as InvalidRequestException through the AWS API', async () => {
    await put(prod.environment.id, 'PING', 'p-${PONG}');
    const pong = await put(prod.environment.id, 'PONG', 'q-${PING}');
    const answer = await call('POST', `/api/v1/secrets/${pong}/reveal`, { token: ws.apiKey });
    expect(answer.status).toBe(409);
    expect(answer.body.error.details).toEqual([expect.objectContaining({ reason: 'cycle' })]);
    const sm = client(await awsKey(ws));
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'app/prod/PING' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
    });
  });

  it('a write whose references do not parse is VALIDATION_ERROR (REST) or InvalidParameterException (AWS), and writes nothing', async () => {
    const answer = await call('PUT', `/api/v1/environments/${prod.environment.id}/secrets`, {
      token: ws.apiKey,
      body: { key: 'BROKEN', value: 'x-${not closed' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^value: /) });
    const sm = client(await awsKey(ws));
    await expect(sm.send(new CreateSecretCommand({ Name: 'app/prod/BROKEN', SecretString: '${a..b}' }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringMatching(/^SecretString: /),
    });
    expect((await call('POST', '/api/v1/reveal', { token: ws.apiKey, body: { path: 'app/prod/BROKEN' } })).status).toBe(404);
  });

  it('keeps the targets on the head, version and path items (none for a plain secret), and a restore keeps them', async () => {
    const { doc, tableName } = localStore();
    const item = async (key: { PK: string; SK: string }) => (await doc.send(new GetCommand({ TableName: tableName, Key: key }))).Item!;
    const itemsOf = (id: string, key: string) =>
      Promise.all([
        item(keys.secretHead(ws.workspaceId, id)),
        item(keys.secretVersion(ws.workspaceId, id, 1)),
        item(keys.secretPath(ws.workspaceId, `app/prod/${key}`)),
      ]);
    const targets = ['app/prod/DB_USER', 'app/shared/DB_HOST'];
    expect((await itemsOf(ids.URL!, 'DB_URL')).map((found) => found.references)).toEqual([targets, targets, targets]);
    expect((await itemsOf(ids.USER!, 'DB_USER')).filter((found) => 'references' in found)).toEqual([]);

    await call('DELETE', `/api/v1/secrets/${ids.URL}`, { token: ws.apiKey });
    expect((await call('POST', `/api/v1/secrets/${ids.URL}/restore`, { token: ws.apiKey })).status).toBe(200);

    expect((await itemsOf(ids.URL!, 'DB_URL')).map((found) => found.references)).toEqual([targets, targets, targets]);
    expect((await call('POST', `/api/v1/secrets/${ids.URL}/reveal`, { token: ws.apiKey })).body.data.value).toBe(
      'postgres://alice@db.internal/app',
    );
  });
});
