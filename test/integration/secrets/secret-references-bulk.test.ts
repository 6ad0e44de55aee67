import { BatchGetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from '../aws/support.ts';

/**
 * Secret references in bulk reveals, end to end (decisions.md v1.4, "Secret references"): an environment load
 * resolves its values' references, a page holding one that cannot be resolved is refused whole (409 with details);
 * BatchGetSecretValue through the AWS SDK answers the resolved value and an `Errors` item for a broken one; each target
 * revealed is its own `secret.reveal` audit entry with `via`.
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
const load = (envId: string) => call('POST', `/api/v1/environments/${envId}/secrets/reveal`, { token: ws.apiKey });

beforeAll(async () => {
  ws = await newWorkspace();
  prod = await newEnvironment(ws.apiKey, { project: 'app', environment: 'prod' });
  const created = await call('POST', `/api/v1/projects/${prod.project.id}/environments`, { token: ws.apiKey, body: { name: 'shared' } });
  shared = created.body.data;
  ids.USER = await put(prod.environment.id, 'DB_USER', 'alice');
  ids.HOST = await put(shared.id, 'DB_HOST', 'db.internal');
  ids.URL = await put(prod.environment.id, 'DB_URL', 'postgres://${DB_USER}@${shared.DB_HOST}/app');
});

describe('an environment load with references', () => {
  it('answers every value resolved, each target revealed one audit entry with via', async () => {
    // Act
    const answer = await load(prod.environment.id);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data.map(({ key, value }: { key: string; value: string }) => [key, value])).toEqual([
      ['DB_URL', 'postgres://alice@db.internal/app'],
      ['DB_USER', 'alice'],
    ]);
    // DB_USER: its own bulk entry, and one as DB_URL's target; DB_HOST (another environment): one, as a target.
    expect((await reveals(ids.USER!)).map((entry) => [entry.metadata.bulk ?? null, entry.metadata.via ?? null]).sort()).toEqual(
      [
        [true, null],
        [null, ids.URL],
      ].sort(),
    );
    expect((await reveals(ids.HOST!)).map((entry) => entry.metadata.via)).toEqual([ids.URL]);
    expect((await reveals(ids.URL!)).map((entry) => entry.metadata.via)).toEqual([undefined]);
  });

  it('one broken reference refuses the whole page: 409 with details, no value, no target audited', async () => {
    // Prepare: an environment of its own, so the first test's page stays as it was.
    const env = await call('POST', `/api/v1/projects/${prod.project.id}/environments`, { token: ws.apiKey, body: { name: 'broken' } });
    const ok = await put(env.body.data.id, 'OK', 'user=${prod.DB_USER}');
    await put(env.body.data.id, 'BAD', '${prod.MISSING}');
    await put(env.body.data.id, 'WORSE', 'x-${GONE}');
    const before = (await reveals(ids.USER!)).length;

    // Act
    const answer = await load(env.body.data.id);

    // Assess
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'CONFLICT' });
    expect(answer.body.error.details).toEqual(
      expect.arrayContaining([
        { reference: 'prod.MISSING', reason: 'unresolvable' },
        { reference: 'GONE', reason: 'unresolvable' },
      ]),
    );
    expect(answer.body.error.details).toHaveLength(2);
    expect(JSON.stringify(answer.body)).not.toContain('alice');
    expect(answer.body.data ?? null).toBeNull();
    expect(await reveals(ids.USER!)).toHaveLength(before);
    expect(await reveals(ok)).toEqual([]);
  });
});

describe('an environment load with ?raw=true', () => {
  it('answers every value as written and audits no target, even where a reference cannot be resolved', async () => {
    // Prepare: an environment whose load resolved would be refused (GONE does not exist)
    const env = await call('POST', `/api/v1/projects/${prod.project.id}/environments`, { token: ws.apiKey, body: { name: 'raw' } });
    const url = await put(env.body.data.id, 'URL', 'postgres://${prod.DB_USER}@${GONE}/app');
    const before = (await reveals(ids.USER!)).length;

    // Act
    const answer = await call('POST', `/api/v1/environments/${env.body.data.id}/secrets/reveal?raw=true`, { token: ws.apiKey });
    const refused = await load(env.body.data.id);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data.map(({ key, value }: { key: string; value: string }) => [key, value])).toEqual([
      ['URL', 'postgres://${prod.DB_USER}@${GONE}/app'],
    ]);
    expect(refused.status).toBe(409);
    expect(await reveals(ids.USER!)).toHaveLength(before);
    expect((await reveals(url)).map((entry) => entry.metadata.bulk)).toEqual([true]);
  });
});

describe("the AWS API's BatchGetSecretValue with references (the AWS SDK for JavaScript)", () => {
  it('answers the resolved value and an Errors item for the broken one, each target revealed one entry with via', async () => {
    // Prepare
    const broken = await put(prod.environment.id, 'BROKEN_REF', 'x-${NOWHERE}');
    const before = (await reveals(ids.HOST!)).length;
    const sm = client(await awsKey(ws));

    // Act
    const batch = await sm.send(new BatchGetSecretValueCommand({ SecretIdList: ['app/prod/DB_URL', 'app/prod/BROKEN_REF'] }));

    // Assess
    expect(batch.SecretValues?.map((value) => [value.Name, value.SecretString])).toEqual([
      ['app/prod/DB_URL', 'postgres://alice@db.internal/app'],
    ]);
    expect(batch.Errors).toEqual([
      {
        SecretId: 'app/prod/BROKEN_REF',
        ErrorCode: 'InvalidRequestException',
        Message: expect.stringContaining('${NOWHERE} (unresolvable)'),
      },
    ]);
    const host = await reveals(ids.HOST!);
    expect(host).toHaveLength(before + 1);
    expect(host.filter((entry) => entry.metadata.via === ids.URL)).toHaveLength(before + 1);
    expect(await reveals(broken)).toEqual([]);
  });
});
