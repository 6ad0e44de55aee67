import {
  BatchGetSecretValueCommand,
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  ReplicateSecretToRegionsCommand,
  GetSecretValueCommand,
  ListSecretVersionIdsCommand,
  ListSecretsCommand,
  paginateListSecrets,
} from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { arnSuffix, derivedVersionId } from '../../../shared/secrets/index.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { awsKey, client } from './support.ts';
import { newEnvironment } from '../../support/secrets.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

describe('the AWS Secrets Manager API (POST /) through the AWS SDK for JavaScript', () => {
  let ws: Ws;
  let envId: string;
  let secretId: string;
  let key: Awaited<ReturnType<typeof awsKey>>;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'payments-api', environment: 'production' })).environment.id;
    const put = (value: string) =>
      call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'DB_URL', value } });
    secretId = (await put('postgres://one')).body.data.id;
    await put('postgres://two');
    key = await awsKey(ws);
  });

  it('creates a key pair in AWS form, the secret shown once and the id on the record', async () => {
    expect(key.accessKeyId).toMatch(/^AKSM[A-Z2-7]{16}$/);
    expect(key.secretAccessKey).toHaveLength(40);
    const listed = (await call('GET', '/api/v1/access-keys', { token: ws.apiKey })).body.data.find(
      (item: { id: string }) => item.id === key.id,
    );
    expect(listed.auth).toEqual({ type: 'aws_sigv4', awsAccessKeyId: key.accessKeyId });
    expect(JSON.stringify(listed)).not.toContain(key.secretAccessKey);
  });

  it('GetSecretValue by name, ARN and partial ARN, and by stage and VersionId; audited with interface aws', async () => {
    const sm = client(key);
    const current = await sm.send(new GetSecretValueCommand({ SecretId: 'payments-api/production/DB_URL' }));
    const arn = `arn:aws:secretsmanager:us-east-1:000000000000:secret:payments-api/production/DB_URL-${arnSuffix(secretId)}`;
    expect(current).toMatchObject({
      ARN: arn,
      Name: 'payments-api/production/DB_URL',
      SecretString: 'postgres://two',
      VersionId: derivedVersionId(secretId, 2),
      VersionStages: ['AWSCURRENT'],
    });
    expect(current.CreatedDate).toBeInstanceOf(Date);
    expect((await sm.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString).toBe('postgres://two');
    expect((await sm.send(new GetSecretValueCommand({ SecretId: arn.slice(0, -7) }))).SecretString).toBe('postgres://two');
    const previous = await sm.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSPREVIOUS' }));
    expect(previous).toMatchObject({
      SecretString: 'postgres://one',
      VersionStages: ['AWSPREVIOUS'],
      VersionId: derivedVersionId(secretId, 1),
    });
    const byId = await sm.send(new GetSecretValueCommand({ SecretId: arn, VersionId: derivedVersionId(secretId, 1) }));
    expect(byId.SecretString).toBe('postgres://one');
    // Every value answered is a secret.reveal entry by the key's identity, made through the AWS interface.
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 10 }, { target: secretId, action: 'secret.reveal' });
    expect(audit.items).toHaveLength(5);
    expect(
      audit.items.every((entry) => entry.actorSub === key.identityId && (entry.metadata as { interface?: string }).interface === 'aws'),
    ).toBe(true);
  });

  it('DescribeSecret shows the names, dates and the two staged versions, and never a value', async () => {
    const described = await client(key).send(new DescribeSecretCommand({ SecretId: 'payments-api/production/DB_URL' }));
    expect(described).toMatchObject({
      Name: 'payments-api/production/DB_URL',
      RotationEnabled: false,
      VersionIdsToStages: { [derivedVersionId(secretId, 2)]: ['AWSCURRENT'], [derivedVersionId(secretId, 1)]: ['AWSPREVIOUS'] },
    });
    expect(JSON.stringify(described)).not.toContain('postgres://');
  });

  it('ListSecretVersionIds: the staged versions by default, every version page by page with IncludeDeprecated', async () => {
    const sm = client(key);
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'ROTATED', value: 'a' } });
    for (const value of ['b', 'c'])
      await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'ROTATED', value } });
    const staged = await sm.send(new ListSecretVersionIdsCommand({ SecretId: 'payments-api/production/ROTATED' }));
    expect(staged.Versions?.map((v) => v.VersionStages)).toEqual([['AWSCURRENT'], ['AWSPREVIOUS']]);
    const first = await sm.send(
      new ListSecretVersionIdsCommand({ SecretId: 'payments-api/production/ROTATED', IncludeDeprecated: true, MaxResults: 2 }),
    );
    expect(first.Versions).toHaveLength(2);
    expect(first.NextToken).toEqual(expect.any(String));
    const second = await sm.send(
      new ListSecretVersionIdsCommand({
        SecretId: 'payments-api/production/ROTATED',
        IncludeDeprecated: true,
        MaxResults: 2,
        NextToken: first.NextToken,
      }),
    );
    expect(second.Versions?.map((v) => v.VersionStages)).toEqual([[]]);
    expect(second.NextToken).toBeUndefined();
    await expect(
      sm.send(new ListSecretVersionIdsCommand({ SecretId: 'payments-api/production/ROTATED', IncludeDeprecated: true, NextToken: 'nope' })),
    ).rejects.toMatchObject({ name: 'InvalidNextTokenException' });
  });

  it("ListSecrets: newest first, pages with NextToken (and the SDK paginator), name filters and their negation, a scoped key's view", async () => {
    const listing = (await newEnvironment(ws.apiKey, { project: 'listing', environment: 'dev' })).environment.id;
    for (const name of ['A_ONE', 'B_TWO', 'C_THREE']) {
      await call('PUT', `/api/v1/environments/${listing}/secrets`, { token: ws.apiKey, body: { key: name, value: 'v' } });
    }
    const sm = client(key);
    const mine = [{ Key: 'name' as const, Values: ['listing/dev/'] }];
    const first = await sm.send(new ListSecretsCommand({ Filters: mine, MaxResults: 2 }));
    expect(first.SecretList?.map((s) => s.Name)).toEqual(['listing/dev/C_THREE', 'listing/dev/B_TWO']);
    const second = await sm.send(new ListSecretsCommand({ Filters: mine, MaxResults: 2, NextToken: first.NextToken }));
    expect(second.SecretList?.map((s) => s.Name)).toEqual(['listing/dev/A_ONE']);
    expect(second.NextToken).toBeUndefined();
    const paged: string[] = [];
    for await (const page of paginateListSecrets({ client: sm, pageSize: 1 }, { Filters: mine }))
      paged.push(...(page.SecretList ?? []).map((s) => s.Name!));
    expect(paged).toEqual(['listing/dev/C_THREE', 'listing/dev/B_TWO', 'listing/dev/A_ONE']);
    const negated = await sm.send(new ListSecretsCommand({ Filters: [...mine, { Key: 'name', Values: ['!listing/dev/B'] }] }));
    expect(negated.SecretList?.map((s) => s.Name)).toEqual(['listing/dev/C_THREE', 'listing/dev/A_ONE']);
    expect(first.SecretList?.[0]).toMatchObject({
      ARN: expect.stringMatching(/:secret:listing\/dev\/C_THREE-[A-Za-z0-9]{6}$/),
      RotationEnabled: false,
    });
    // A key scoped to one project lists that project's secrets only.
    const scoped = await awsKey(ws, { permissions: [{ projects: ['listing'], actions: ['read'] }] });
    const seen = (await client(scoped).send(new ListSecretsCommand({}))).SecretList?.map((s) => s.Name);
    expect(seen).toEqual(['listing/dev/C_THREE', 'listing/dev/B_TWO', 'listing/dev/A_ONE']);
    await expect(sm.send(new ListSecretsCommand({ NextToken: 'nope' }))).rejects.toMatchObject({ name: 'InvalidNextTokenException' });
  });

  it("answers AWS error types: a missing secret, a wrong suffix, another region's ARN, an unknown version", async () => {
    const sm = client(key);
    const notFound = { name: 'ResourceNotFoundException', $metadata: expect.objectContaining({ httpStatusCode: 400 }) };
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'payments-api/production/NOPE' }))).rejects.toMatchObject(notFound);
    await expect(
      sm.send(
        new GetSecretValueCommand({
          SecretId: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:payments-api/production/DB_URL-zzzzzz',
        }),
      ),
    ).rejects.toMatchObject(notFound);
    await expect(
      sm.send(
        new GetSecretValueCommand({ SecretId: 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:payments-api/production/DB_URL' }),
      ),
    ).rejects.toMatchObject(notFound);
    await expect(
      sm.send(new GetSecretValueCommand({ SecretId: 'payments-api/production/DB_URL', VersionStage: 'AWSPENDING' })),
    ).rejects.toMatchObject(notFound);
    await expect(
      sm.send(new ReplicateSecretToRegionsCommand({ SecretId: 'x', AddReplicaRegions: [{ Region: 'eu-west-1' }] })),
    ).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: 'ReplicateSecretToRegions is not supported by this service.',
    });
  });

  it("refuses a wrong secret, an unknown key id, another region, a revoked key and a bearer token, with AWS's types", async () => {
    const get = new GetSecretValueCommand({ SecretId: 'payments-api/production/DB_URL' });
    await expect(client({ ...key, secretAccessKey: 'x'.repeat(40) }).send(get)).rejects.toMatchObject({
      name: 'InvalidSignatureException',
    });
    await expect(client({ ...key, accessKeyId: 'AKSMAAAAAAAAAAAAAAAA' }).send(get)).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
    await expect(client(key, 'eu-west-1').send(get)).rejects.toMatchObject({ name: 'InvalidSignatureException' });
    const bearer = await fetch(`${inject('stack').baseUrl}/`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ws.apiKey}`,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'secretsmanager.GetSecretValue',
      },
      body: '{"SecretId":"payments-api/production/DB_URL"}',
    });
    expect([bearer.status, bearer.headers.get('x-amzn-errortype'), ((await bearer.json()) as { __type: string }).__type]).toEqual([
      400,
      'IncompleteSignature',
      'IncompleteSignature',
    ]);
    const unsigned = await fetch(`${inject('stack').baseUrl}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1' },
      body: '{}',
    });
    expect([unsigned.status, unsigned.headers.get('x-amzn-errortype')]).toEqual([403, 'MissingAuthenticationToken']);
    const revoked = await awsKey(ws);
    expect((await call('POST', `/api/v1/access-keys/${revoked.id}/revoke`, { token: ws.apiKey })).status).toBe(200);
    await expect(client(revoked).send(get)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
  });

  it('a scoped key sees only its rules: what it may not read is ResourceNotFoundException, what it may read but not reveal is AccessDeniedException', async () => {
    const other = (await newEnvironment(ws.apiKey, { project: 'billing', environment: 'production' })).environment.id;
    await call('PUT', `/api/v1/environments/${other}/secrets`, { token: ws.apiKey, body: { key: 'TOKEN', value: 'billing-token' } });
    const readOnly = await awsKey(ws, { permissions: [{ projects: ['payments-api'], actions: ['read'] }] });
    const sm = client(readOnly);
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'billing/production/TOKEN' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'payments-api/production/DB_URL' }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'payments-api/production/DB_URL' }))).Name).toBe(
      'payments-api/production/DB_URL',
    );
  });

  it('refuses a key used from outside its allowedCidrs with AccessDeniedException', async () => {
    const fenced = await awsKey(ws, { allowedCidrs: ['10.9.9.0/24'] });
    await expect(client(fenced).send(new GetSecretValueCommand({ SecretId: 'payments-api/production/DB_URL' }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
  });

  it('GetRandomPassword answers a password of the asked length and classes', async () => {
    const { RandomPassword } = await client(key).send(new GetRandomPasswordCommand({ PasswordLength: 24, ExcludePunctuation: true }));
    expect(RandomPassword).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(RandomPassword).toMatch(/[A-Z]/);
    expect(RandomPassword).toMatch(/[a-z]/);
    expect(RandomPassword).toMatch(/[0-9]/);
  });

  it('BatchGetSecretValue: by SecretIdList (Errors for what fails, one audit entry per value) and by Filters, page by page', async () => {
    const env = (await newEnvironment(ws.apiKey, { project: 'batch', environment: 'prod' })).environment.id;
    const ids: Record<string, string> = {};
    for (const name of ['ONE', 'TWO', 'THREE']) {
      const put = await call('PUT', `/api/v1/environments/${env}/secrets`, { token: ws.apiKey, body: { key: name, value: `v-${name}` } });
      ids[name] = put.body.data.id;
    }
    const sm = client(key);
    const byList = await sm.send(
      new BatchGetSecretValueCommand({
        SecretIdList: [
          'batch/prod/ONE',
          `batch/prod/TWO`,
          'batch/prod/MISSING',
          'arn:aws:secretsmanager:eu-west-1:000000000000:secret:batch/prod/ONE',
        ],
      }),
    );
    expect(byList.SecretValues?.map((value) => [value.Name, value.SecretString, value.VersionStages])).toEqual([
      ['batch/prod/ONE', 'v-ONE', ['AWSCURRENT']],
      ['batch/prod/TWO', 'v-TWO', ['AWSCURRENT']],
    ]);
    expect(byList.Errors?.map((error) => [error.SecretId, error.ErrorCode])).toEqual([
      ['batch/prod/MISSING', 'ResourceNotFoundException'],
      ['arn:aws:secretsmanager:eu-west-1:000000000000:secret:batch/prod/ONE', 'ResourceNotFoundException'],
    ]);
    const audit = await localStore().store.listAudit(ws.workspaceId, { limit: 10 }, { target: ids.ONE!, action: 'secret.reveal' });
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]!.metadata).toMatchObject({ interface: 'aws', bulk: true, version: 1 });
    // Filters: the matching secrets a page at a time, NextToken carrying on.
    const first = await sm.send(new BatchGetSecretValueCommand({ Filters: [{ Key: 'name', Values: ['batch/'] }], MaxResults: 2 }));
    expect(first.SecretValues).toHaveLength(2);
    expect(first.NextToken).toBeDefined();
    const second = await sm.send(
      new BatchGetSecretValueCommand({ Filters: [{ Key: 'name', Values: ['batch/'] }], MaxResults: 2, NextToken: first.NextToken }),
    );
    expect([...first.SecretValues!, ...second.SecretValues!].map((value) => value.SecretString).sort()).toEqual([
      'v-ONE',
      'v-THREE',
      'v-TWO',
    ]);
    await expect(sm.send(new BatchGetSecretValueCommand({}))).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sm.send(new BatchGetSecretValueCommand({ SecretIdList: Array.from({ length: 21 }, (_, i) => `batch/prod/K${i}`) })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    // A key that may read but not reveal gets AccessDeniedException for each, and nothing revealed.
    const reader = client(await awsKey(ws, { permissions: [{ projects: ['batch'], actions: ['read'] }] }));
    const denied = await reader.send(
      new BatchGetSecretValueCommand({ SecretIdList: ['batch/prod/ONE', 'payments-api/production/DB_URL'] }),
    );
    expect(denied.SecretValues).toEqual([]);
    expect(denied.Errors?.map((error) => error.ErrorCode)).toEqual(['AccessDeniedException', 'ResourceNotFoundException']);
  });
});
