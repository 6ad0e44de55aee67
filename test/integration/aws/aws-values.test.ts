import {
  BatchGetSecretValueCommand,
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  UpdateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from './support.ts';

/**
 * Secrets without a value and binary values (decisions.md v1.4, "The AWS API for Terraform and External Secrets
 * Operator"): Terraform's `aws_secretsmanager_secret` creates a secret with no value; External Secrets Operator's
 * PushSecret writes SecretBinary by default. Both through the AWS SDK, and what REST answers for them.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

/** The REST list item of `key` in the environment. */
async function listed(ws: Ws, envId: string, key: string) {
  const page = await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey });
  return (page.body.data as { id: string; key: string; currentVersion: number }[]).find((secret) => secret.key === key);
}

/** The environment loaded through REST: its items by key. */
async function loaded(ws: Ws, envId: string) {
  const page = await call('POST', `/api/v1/environments/${envId}/secrets/reveal`, { token: ws.apiKey });
  expect(page.status).toBe(200);
  return Object.fromEntries((page.body.data as { key: string }[]).map((item) => [item.key, item]));
}

describe('secrets without a value, through the AWS API and REST', () => {
  let ws: Ws;
  let envId: string;
  let sm: ReturnType<typeof client>;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'tf', environment: 'prod' })).environment.id;
    sm = client(await awsKey(ws));
  });

  it('CreateSecret without a value makes a secret with no version: no VersionId, no VersionIdsToStages, no value', async () => {
    const created = await sm.send(new CreateSecretCommand({ Name: 'tf/prod/EMPTY', Description: 'made by terraform' }));
    expect(created.ARN).toMatch(/tf\/prod\/EMPTY-/);
    expect(created.VersionId).toBeUndefined();
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'tf/prod/EMPTY' }));
    expect(described).toMatchObject({ Name: 'tf/prod/EMPTY', Description: 'made by terraform' });
    expect(described.VersionIdsToStages).toBeUndefined();
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'tf/prod/EMPTY' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    // REST: listed at version 0; its reveal NOT_FOUND, saying why; the environment load leaves it out.
    const item = await listed(ws, envId, 'EMPTY');
    expect(item).toMatchObject({ currentVersion: 0 });
    const reveal = await call('POST', `/api/v1/secrets/${item!.id}/reveal`, { token: ws.apiKey });
    expect(reveal.status).toBe(404);
    expect(reveal.body.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('has no value yet') });
    expect(await loaded(ws, envId)).not.toHaveProperty('EMPTY');
    const batch = await sm.send(new BatchGetSecretValueCommand({ SecretIdList: ['tf/prod/EMPTY'] }));
    expect(batch.SecretValues).toEqual([]);
    expect(batch.Errors?.[0]).toMatchObject({ SecretId: 'tf/prod/EMPTY', ErrorCode: 'ResourceNotFoundException' });
    const created_ = await localStore().store.listAudit(ws.workspaceId, { limit: 5 }, { target: item!.id, action: 'secret.create' });
    expect(created_.items.map((entry) => entry.metadata.version)).toEqual([0]);
  });

  it('PutSecretValue writes version 1 (AWSCURRENT), audited as a new version of the secret; REST PUT writes the next', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'tf/prod/LATER' }));
    const put = await sm.send(new PutSecretValueCommand({ SecretId: 'tf/prod/LATER', SecretString: 'first' }));
    expect(put.VersionStages).toEqual(['AWSCURRENT']);
    const got = await sm.send(new GetSecretValueCommand({ SecretId: 'tf/prod/LATER' }));
    expect(got).toMatchObject({ SecretString: 'first', VersionId: put.VersionId, VersionStages: ['AWSCURRENT'] });
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'tf/prod/LATER' }));
    expect(described.VersionIdsToStages).toEqual({ [put.VersionId!]: ['AWSCURRENT'] });
    const id = (await listed(ws, envId, 'LATER'))!.id;
    const actions = await localStore().store.listAudit(ws.workspaceId, { limit: 5 }, { target: id });
    const writes = actions.items.filter((entry) => entry.action !== 'secret.reveal');
    expect(writes.map((entry) => [entry.action, entry.metadata.version]).reverse()).toEqual([
      ['secret.create', 0],
      ['secret.rotate', 1],
    ]);
    // REST PUT on another valueless key writes version 1 too.
    await sm.send(new CreateSecretCommand({ Name: 'tf/prod/REST_FIRST' }));
    const rest = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'REST_FIRST', value: 'r' } });
    expect(rest.body.data).toMatchObject({ key: 'REST_FIRST', version: 1 });
    expect((await loaded(ws, envId)).REST_FIRST).toMatchObject({ value: 'r', version: 1 });
  });

  it('CreateSecret of a name whose secret has no value yet is ResourceExistsException, with or without a value', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'tf/prod/TAKEN_EMPTY' }));
    for (const input of [{}, { SecretString: 'v' }, { SecretBinary: new Uint8Array([1]) }])
      await expect(sm.send(new CreateSecretCommand({ Name: 'tf/prod/TAKEN_EMPTY', ...input }))).rejects.toMatchObject({
        name: 'ResourceExistsException',
      });
    expect((await listed(ws, envId, 'TAKEN_EMPTY'))?.currentVersion).toBe(0);
  });

  it('the first version of a secret without a value must take AWSCURRENT', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'tf/prod/PENDING_FIRST' }));
    await expect(
      sm.send(new PutSecretValueCommand({ SecretId: 'tf/prod/PENDING_FIRST', SecretString: 'p', VersionStages: ['AWSPENDING'] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('AWSCURRENT') });
  });

  it('is deleted and restored as it was (still without a value); CreateSecret of its name in the window is refused, as ESO and Terraform match it', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'tf/prod/GONE' }));
    await sm.send(new DeleteSecretCommand({ SecretId: 'tf/prod/GONE', RecoveryWindowInDays: 7 }));
    await expect(sm.send(new CreateSecretCommand({ Name: 'tf/prod/GONE', SecretString: 'x' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: expect.stringContaining('scheduled for deletion'),
    });
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'tf/prod/GONE' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: expect.stringContaining('marked for deletion'),
    });
    await sm.send(new RestoreSecretCommand({ SecretId: 'tf/prod/GONE' }));
    expect((await listed(ws, envId, 'GONE'))?.currentVersion).toBe(0);
    // REST frees a key at once: a REST delete leaves the AWS API's rule alone for REST writes.
    await sm.send(new DeleteSecretCommand({ SecretId: 'tf/prod/GONE', ForceDeleteWithoutRecovery: true }));
    expect((await sm.send(new CreateSecretCommand({ Name: 'tf/prod/GONE', SecretString: 'again' }))).VersionId).toBeDefined();
  });
});

describe('binary values (SecretBinary), through the AWS API and REST', () => {
  let ws: Ws;
  let envId: string;
  let sm: ReturnType<typeof client>;
  const bytes = new Uint8Array([0, 1, 2, 250, 255, 10, 13, 39, 34]);
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'eso', environment: 'prod' })).environment.id;
    sm = client(await awsKey(ws));
  });

  it('is answered as SecretBinary by the AWS API and base64 with encoding by REST (reveal, environment load)', async () => {
    await sm.send(
      new CreateSecretCommand({
        Name: 'eso/prod/TLS_KEY',
        SecretBinary: bytes,
        KmsKeyId: 'alias/aws/secretsmanager',
        Tags: [{ Key: 'managed-by', Value: 'external-secrets' }],
      }),
    );
    const got = await sm.send(new GetSecretValueCommand({ SecretId: 'eso/prod/TLS_KEY' }));
    expect(got.SecretString).toBeUndefined();
    expect(Buffer.from(got.SecretBinary!)).toEqual(Buffer.from(bytes));
    const base64 = Buffer.from(bytes).toString('base64');
    const id = (await listed(ws, envId, 'TLS_KEY'))!.id;
    const reveal = await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey });
    expect(reveal.body.data).toEqual({ key: 'TLS_KEY', version: 1, value: base64, encoding: 'base64' });
    expect((await loaded(ws, envId)).TLS_KEY).toMatchObject({ value: base64, encoding: 'base64' });
    const batch = await sm.send(new BatchGetSecretValueCommand({ SecretIdList: ['eso/prod/TLS_KEY'] }));
    expect(Buffer.from(batch.SecretValues![0]!.SecretBinary!)).toEqual(Buffer.from(bytes));
  });

  it('a string version after a binary one is a string again; a rollback to the binary one is binary', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'eso/prod/MIXED', SecretBinary: bytes }));
    await sm.send(new PutSecretValueCommand({ SecretId: 'eso/prod/MIXED', SecretString: 'text now' }));
    const id = (await listed(ws, envId, 'MIXED'))!.id;
    const text = await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey });
    expect(text.body.data).toEqual({ key: 'MIXED', version: 2, value: 'text now' });
    expect((await loaded(ws, envId)).MIXED).not.toHaveProperty('encoding');
    const past = await call('POST', `/api/v1/secrets/${id}/reveal?version=1`, { token: ws.apiKey });
    expect(past.body.data).toMatchObject({ version: 1, encoding: 'base64' });
    expect((await call('POST', `/api/v1/secrets/${id}/rollback`, { token: ws.apiKey, body: { version: 1 } })).status).toBe(200);
    const back = await sm.send(new GetSecretValueCommand({ SecretId: 'eso/prod/MIXED' }));
    expect(Buffer.from(back.SecretBinary!)).toEqual(Buffer.from(bytes));
    // UpdateSecret with a binary value too.
    await sm.send(new UpdateSecretCommand({ SecretId: 'eso/prod/MIXED', SecretBinary: new Uint8Array([7]) }));
    expect(Buffer.from((await sm.send(new GetSecretValueCommand({ SecretId: 'eso/prod/MIXED' }))).SecretBinary!)).toEqual(Buffer.from([7]));
  });

  it('takes 1 to 65,536 bytes, and never both SecretString and SecretBinary (InvalidParameterException)', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'eso/prod/BIG', SecretBinary: new Uint8Array(65_536).fill(7) }));
    const big = await sm.send(new GetSecretValueCommand({ SecretId: 'eso/prod/BIG' }));
    expect(big.SecretBinary?.length).toBe(65_536);
    await expect(
      sm.send(new PutSecretValueCommand({ SecretId: 'eso/prod/BIG', SecretBinary: new Uint8Array(65_537) })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('SecretBinary') });
    await expect(
      sm.send(new PutSecretValueCommand({ SecretId: 'eso/prod/BIG', SecretString: 's', SecretBinary: new Uint8Array([1]) })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(sm.send(new PutSecretValueCommand({ SecretId: 'eso/prod/BIG' }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
    expect((await listed(ws, envId, 'BIG'))?.currentVersion).toBe(1);
  });

  it('a repeated ClientRequestToken compares the encoding too: the same bytes answer the version, a string of their base64 does not', async () => {
    const token = '00000001-3333-4333-8333-333333333333';
    const input = { Name: 'eso/prod/PUSHED', SecretBinary: bytes, ClientRequestToken: token };
    const first = await sm.send(new CreateSecretCommand(input));
    expect(await sm.send(new CreateSecretCommand(input))).toMatchObject({ VersionId: first.VersionId });
    await expect(
      sm.send(
        new PutSecretValueCommand({
          SecretId: 'eso/prod/PUSHED',
          SecretString: Buffer.from(bytes).toString('base64'),
          ClientRequestToken: token,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceExistsException' });
  });
});
