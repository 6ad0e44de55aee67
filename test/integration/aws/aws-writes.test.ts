import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, it } from 'vitest';
import { derivedVersionId } from '../../../shared/secrets/index.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from './support.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

const token = (n: number) => `${String(n).padStart(8, '0')}-1111-4111-8111-111111111111`;

/** The workspace's audit entries of one action on one secret, oldest first. */
async function audited(ws: Ws, target: string, action: string) {
  const page = await localStore().store.listAudit(ws.workspaceId, { limit: 50 }, { target, action: action as 'secret.create' });
  return page.items.reverse();
}

describe('the AWS API writes: CreateSecret, PutSecretValue, UpdateSecret, tags, DeleteSecret and RestoreSecret', () => {
  let ws: Ws;
  let envId: string;
  let key: Awaited<ReturnType<typeof awsKey>>;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'shop', environment: 'staging' })).environment.id;
    key = await awsKey(ws);
  });

  it('CreateSecret makes version 1 under the token, with description and tags; REST sees it; a retry makes nothing new', async () => {
    const sm = client(key);
    const input = {
      Name: 'shop/staging/STRIPE_KEY',
      SecretString: 'sk_test_1',
      ClientRequestToken: token(1),
      Description: 'Stripe, test mode',
      Tags: [
        { Key: 'team', Value: 'payments' },
        { Key: 'tier', Value: '' },
      ],
    };
    const created = await sm.send(new CreateSecretCommand(input));
    expect(created).toMatchObject({ Name: 'shop/staging/STRIPE_KEY', VersionId: token(1) });
    expect(created.ARN).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:shop\/staging\/STRIPE_KEY-[A-Za-z0-9]{6}$/);
    // The same token and value again: the same answer, and still one version.
    expect(await sm.send(new CreateSecretCommand(input))).toMatchObject({ ARN: created.ARN, VersionId: token(1) });
    const rest = await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey });
    const item = rest.body.data.find((secret: { key: string }) => secret.key === 'STRIPE_KEY');
    expect(item).toMatchObject({ currentVersion: 1 });
    // REST list items keep their shape: the AWS-only fields stay on the head.
    expect(item).not.toHaveProperty('tags');
    const described = await sm.send(new DescribeSecretCommand({ SecretId: created.ARN }));
    expect(described).toMatchObject({
      Description: 'Stripe, test mode',
      Tags: [
        { Key: 'team', Value: 'payments' },
        { Key: 'tier', Value: '' },
      ],
      VersionIdsToStages: { [token(1)]: ['AWSCURRENT'] },
    });
    // REST sees the same object: GET /api/v1/secrets/{secretId} and the history's VersionIds and labels.
    const detail = await call('GET', `/api/v1/secrets/${item.id}`, { token: ws.apiKey });
    expect(detail.status).toBe(200);
    expect(detail.body.data).toEqual({
      id: item.id,
      key: 'STRIPE_KEY',
      currentVersion: 1,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      projectId: expect.stringMatching(/^proj_/),
      environmentId: envId,
      path: 'shop/staging/STRIPE_KEY',
      arn: created.ARN,
      description: 'Stripe, test mode',
      tags: { team: 'payments', tier: '' },
      rotation: null,
      references: [],
      referencedBy: [],
    });
    const history = await call('GET', `/api/v1/secrets/${item.id}/versions`, { token: ws.apiKey });
    expect(history.body.data).toEqual([expect.objectContaining({ version: 1, versionId: token(1), stages: ['AWSCURRENT'] })]);
    const got = await sm.send(new GetSecretValueCommand({ SecretId: created.ARN, VersionId: token(1) }));
    expect(got).toMatchObject({ SecretString: 'sk_test_1', VersionId: token(1), VersionStages: ['AWSCURRENT'] });
    const entries = await audited(ws, item.id, 'secret.create');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorSub: key.identityId, metadata: { interface: 'aws', version: 1 } });
  });

  it('refuses to create over a name that exists, with another value under a used token, or in a missing environment', async () => {
    const sm = client(key);
    await sm.send(new CreateSecretCommand({ Name: 'shop/staging/TAKEN', SecretString: 'one', ClientRequestToken: token(2) }));
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'shop/staging/TAKEN', SecretString: 'one', ClientRequestToken: token(3) })),
    ).rejects.toMatchObject({ name: 'ResourceExistsException' });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'shop/staging/TAKEN', SecretString: 'two', ClientRequestToken: token(2) })),
    ).rejects.toMatchObject({ name: 'ResourceExistsException' });
    await expect(sm.send(new CreateSecretCommand({ Name: 'shop/production/X', SecretString: 'v' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(sm.send(new CreateSecretCommand({ Name: 'no-slashes', SecretString: 'v' }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining('Name'),
    });
    await expect(sm.send(new CreateSecretCommand({ Name: 'shop/staging/BAD KEY', SecretString: 'v' }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'shop/staging/BIN', SecretString: 'v', SecretBinary: new Uint8Array([1, 2]) })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('SecretBinary') });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'shop/staging/KMS', SecretString: 'v', KmsKeyId: 'alias/x' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('KmsKeyId') });
    // AWS's default key (External Secrets Operator sends it) means the service's own: accepted (decisions.md v1.4).
    const withDefault = { Name: 'shop/staging/KMS', SecretString: 'v', KmsKeyId: 'alias/aws/secretsmanager' };
    expect((await sm.send(new CreateSecretCommand(withDefault))).Name).toBe('shop/staging/KMS');
    await expect(
      sm.send(new UpdateSecretCommand({ SecretId: 'shop/staging/KMS', SecretString: 'w', KmsKeyId: 'alias/other' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('KmsKeyId') });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'shop/staging/TAGGED', SecretString: 'v', Tags: [{ Key: 'aws:owner', Value: 'x' }] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    // Nothing was left behind by the refusals.
    const keys = (await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey })).body.data.map(
      (secret: { key: string }) => secret.key,
    );
    expect(keys).not.toContain('BIN');
    expect(keys).not.toContain('TAGGED');
    expect(keys).not.toContain('EMPTY');
  });

  it('PutSecretValue adds the current version under its token, idempotent as AWS documents it', async () => {
    const sm = client(key);
    const { ARN } = await sm.send(new CreateSecretCommand({ Name: 'shop/staging/DB_PASSWORD', SecretString: 'v1' }));
    const put = await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'v2', ClientRequestToken: token(10) }));
    expect(put).toMatchObject({ ARN, VersionId: token(10), VersionStages: ['AWSCURRENT'] });
    const again = await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'v2', ClientRequestToken: token(10) }));
    expect(again).toMatchObject({ VersionId: token(10), VersionStages: ['AWSCURRENT'] });
    await expect(
      sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'v3', ClientRequestToken: token(10) })),
    ).rejects.toMatchObject({ name: 'ResourceExistsException' });
    // A token used before, by a version no longer labelled: still the same write.
    await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'v3', ClientRequestToken: token(11) }));
    await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'v4', ClientRequestToken: token(12) }));
    const old = await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'v2', ClientRequestToken: token(10) }));
    expect(old).toMatchObject({ VersionId: token(10), VersionStages: [] });
    const versions = await sm.send(new ListSecretVersionIdsCommand({ SecretId: ARN, IncludeDeprecated: true }));
    expect(versions.Versions?.map((version) => version.VersionId)).toEqual([token(12), token(11), token(10), expect.any(String)]);
    expect((await sm.send(new GetSecretValueCommand({ SecretId: ARN, VersionId: token(10) }))).SecretString).toBe('v2');
    expect((await sm.send(new GetSecretValueCommand({ SecretId: ARN, VersionStage: 'AWSPREVIOUS' }))).VersionId).toBe(token(11));
    // A version with other labels is not current (aws-stages.test.ts has the rest of the label rules).
    const pending = await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'v5', VersionStages: ['AWSPENDING'] }));
    expect(pending.VersionStages).toEqual(['AWSPENDING']);
    expect((await sm.send(new GetSecretValueCommand({ SecretId: ARN }))).SecretString).toBe('v4');
    await expect(sm.send(new PutSecretValueCommand({ SecretId: 'shop/staging/NOPE', SecretString: 'v' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('UpdateSecret changes the description alone (no version, audited secret.tag) or with a new value', async () => {
    const sm = client(key);
    const { ARN } = await sm.send(new CreateSecretCommand({ Name: 'shop/staging/API_TOKEN', SecretString: 'a' }));
    const updated = await sm.send(new UpdateSecretCommand({ SecretId: ARN, Description: 'the partner API' }));
    expect(updated).toEqual(expect.objectContaining({ ARN }));
    expect(updated.VersionId).toBeUndefined();
    let described = await sm.send(new DescribeSecretCommand({ SecretId: ARN }));
    expect(described.Description).toBe('the partner API');
    expect(Object.keys(described.VersionIdsToStages ?? {})).toHaveLength(1);
    const withValue = await sm.send(new UpdateSecretCommand({ SecretId: ARN, SecretString: 'b', ClientRequestToken: token(20) }));
    expect(withValue.VersionId).toBe(token(20));
    expect((await sm.send(new GetSecretValueCommand({ SecretId: ARN }))).SecretString).toBe('b');
    await sm.send(new UpdateSecretCommand({ SecretId: ARN, Description: '' }));
    described = await sm.send(new DescribeSecretCommand({ SecretId: ARN }));
    expect(described.Description).toBeUndefined();
    const secretId = (await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey })).body.data.find(
      (secret: { key: string }) => secret.key === 'API_TOKEN',
    ).id;
    const tagged = await audited(ws, secretId, 'secret.tag');
    expect(tagged.map((entry) => entry.metadata)).toEqual([
      expect.objectContaining({ changed: 'description', interface: 'aws' }),
      expect.objectContaining({ changed: 'description', interface: 'aws' }),
    ]);
    await expect(sm.send(new UpdateSecretCommand({ SecretId: ARN, Description: 'x'.repeat(2049) }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });

  it('TagResource and UntagResource merge and remove tags (at most 50), and ListSecrets filters by them', async () => {
    const sm = client(key);
    const { ARN } = await sm.send(
      new CreateSecretCommand({ Name: 'shop/staging/REDIS_URL', SecretString: 'redis://', Description: 'cache of sessions' }),
    );
    await sm.send(new TagResourceCommand({ SecretId: ARN, Tags: [{ Key: 'owner', Value: 'platform' }] }));
    await sm.send(
      new TagResourceCommand({
        SecretId: ARN,
        Tags: [
          { Key: 'env', Value: 'staging' },
          { Key: 'owner', Value: 'sre' },
        ],
      }),
    );
    expect((await sm.send(new DescribeSecretCommand({ SecretId: ARN }))).Tags).toEqual([
      { Key: 'env', Value: 'staging' },
      { Key: 'owner', Value: 'sre' },
    ]);
    await sm.send(new UntagResourceCommand({ SecretId: ARN, TagKeys: ['env'] }));
    expect((await sm.send(new DescribeSecretCommand({ SecretId: ARN }))).Tags).toEqual([{ Key: 'owner', Value: 'sre' }]);
    const names = async (Filters: { Key: 'tag-key' | 'tag-value' | 'description' | 'all'; Values: string[] }[]) =>
      ((await sm.send(new ListSecretsCommand({ Filters }))).SecretList ?? []).map((secret) => secret.Name);
    expect(await names([{ Key: 'tag-key', Values: ['own'] }])).toEqual(['shop/staging/REDIS_URL']);
    expect(await names([{ Key: 'tag-value', Values: ['sre'] }])).toEqual(['shop/staging/REDIS_URL']);
    expect(await names([{ Key: 'description', Values: ['cache'] }])).toEqual(['shop/staging/REDIS_URL']);
    expect(await names([{ Key: 'all', Values: ['sre'] }])).toEqual(['shop/staging/REDIS_URL']);
    expect(await names([{ Key: 'tag-key', Values: ['!owner'] }])).not.toContain('shop/staging/REDIS_URL');
    // 50 tags at most: 49 more fit, one past it is refused and changes nothing.
    const many = Array.from({ length: 49 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
    await sm.send(new TagResourceCommand({ SecretId: ARN, Tags: many }));
    await expect(sm.send(new TagResourceCommand({ SecretId: ARN, Tags: [{ Key: 'one-more', Value: 'v' }] }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: expect.stringContaining('Tags'),
    });
    expect((await sm.send(new DescribeSecretCommand({ SecretId: ARN }))).Tags).toHaveLength(50);
    await expect(sm.send(new TagResourceCommand({ SecretId: ARN, Tags: [{ Key: 'x'.repeat(129), Value: 'v' }] }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
    await expect(sm.send(new TagResourceCommand({ SecretId: ARN, Tags: [{ Key: 'AWS:x', Value: 'v' }] }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });

  it('DeleteSecret keeps a secret 30 days by default: described with DeletedDate, refused for reads and writes, restored whole', async () => {
    const sm = client(key);
    const { ARN } = await sm.send(
      new CreateSecretCommand({ Name: 'shop/staging/OLD_KEY', SecretString: 'old', Tags: [{ Key: 'keep', Value: 'yes' }] }),
    );
    const before = Date.now();
    const deleted = await sm.send(new DeleteSecretCommand({ SecretId: ARN }));
    expect(deleted).toMatchObject({ ARN, Name: 'shop/staging/OLD_KEY' });
    const window = deleted.DeletionDate!.getTime() - before;
    expect(window).toBeGreaterThan(29.9 * 86_400_000);
    expect(window).toBeLessThan(30.1 * 86_400_000);
    const described = await sm.send(new DescribeSecretCommand({ SecretId: ARN }));
    expect(described.DeletedDate).toBeInstanceOf(Date);
    const refused = { name: 'InvalidRequestException', message: expect.stringContaining('marked for deletion') };
    await expect(sm.send(new GetSecretValueCommand({ SecretId: ARN }))).rejects.toMatchObject(refused);
    await expect(sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'x' }))).rejects.toMatchObject(refused);
    await expect(sm.send(new DeleteSecretCommand({ SecretId: ARN }))).rejects.toMatchObject(refused);
    await expect(sm.send(new CreateSecretCommand({ Name: 'shop/staging/OLD_KEY', SecretString: 'new' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: expect.stringContaining('scheduled for deletion'),
    });
    expect(await sm.send(new RestoreSecretCommand({ SecretId: 'shop/staging/OLD_KEY' }))).toMatchObject({ ARN });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: ARN }))).SecretString).toBe('old');
    expect((await sm.send(new DescribeSecretCommand({ SecretId: ARN }))).Tags).toEqual([{ Key: 'keep', Value: 'yes' }]);
    await expect(sm.send(new RestoreSecretCommand({ SecretId: ARN }))).rejects.toMatchObject({ name: 'InvalidRequestException' });
  });

  it('DeleteSecret: a window of 7 to 30 days, or ForceDeleteWithoutRecovery (gone at once), never both', async () => {
    const sm = client(key);
    const { ARN } = await sm.send(new CreateSecretCommand({ Name: 'shop/staging/TEMP', SecretString: 't' }));
    await expect(sm.send(new DeleteSecretCommand({ SecretId: ARN, RecoveryWindowInDays: 6 }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
    await expect(sm.send(new DeleteSecretCommand({ SecretId: ARN, RecoveryWindowInDays: 31 }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
    await expect(
      sm.send(new DeleteSecretCommand({ SecretId: ARN, RecoveryWindowInDays: 7, ForceDeleteWithoutRecovery: true })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    const seven = await sm.send(new DeleteSecretCommand({ SecretId: ARN, RecoveryWindowInDays: 7 }));
    expect(seven.DeletionDate!.getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    await sm.send(new RestoreSecretCommand({ SecretId: ARN }));
    await sm.send(new DeleteSecretCommand({ SecretId: ARN, ForceDeleteWithoutRecovery: true }));
    await expect(sm.send(new DescribeSecretCommand({ SecretId: ARN }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    // The name is free again at once, for a new secret with a new ARN.
    const again = await sm.send(new CreateSecretCommand({ Name: 'shop/staging/TEMP', SecretString: 't2' }));
    expect(again.ARN).not.toBe(ARN);
  });

  it('GET /api/v1/secrets/{secretId}: a secret without description or tags, written by REST, with derived VersionIds; NOT_FOUND for a key that may not read it', async () => {
    const put = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'PLAIN', value: 'p1' } });
    const id = put.body.data.id as string;
    await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'PLAIN', value: 'p2' } });
    const detail = (await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data;
    expect(detail).toMatchObject({ currentVersion: 2, description: null, tags: {}, rotation: null, path: 'shop/staging/PLAIN' });
    // The ARN REST answers is the one the AWS API names the secret by.
    expect((await client(key).send(new DescribeSecretCommand({ SecretId: detail.arn }))).Name).toBe('shop/staging/PLAIN');
    const history = (await call('GET', `/api/v1/secrets/${id}/versions`, { token: ws.apiKey })).body.data;
    expect(history.map((item: { version: number; stages: string[] }) => [item.version, item.stages])).toEqual([
      [2, ['AWSCURRENT']],
      [1, ['AWSPREVIOUS']],
    ]);
    expect(history[0].versionId).toBe(derivedVersionId(id, 2));
    const other = await call('POST', '/api/v1/access-keys', {
      token: ws.apiKey,
      body: { name: 'elsewhere', permissions: [{ projects: ['other'], actions: ['read'] }] },
    });
    expect((await call('GET', `/api/v1/secrets/${id}`, { token: other.body.data.token })).status).toBe(404);
  });

  it("a key's rules apply to writes: what it may read but not write is AccessDeniedException, and nothing changes", async () => {
    const sm = client(key);
    const { ARN } = await sm.send(new CreateSecretCommand({ Name: 'shop/staging/LOCKED', SecretString: 'l' }));
    const reader = client(await awsKey(ws, { permissions: [{ projects: ['shop'], actions: ['read'] }] }));
    const denied = { name: 'AccessDeniedException' };
    await expect(reader.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'x' }))).rejects.toMatchObject(denied);
    await expect(reader.send(new TagResourceCommand({ SecretId: ARN, Tags: [{ Key: 'a', Value: 'b' }] }))).rejects.toMatchObject(denied);
    await expect(reader.send(new UpdateSecretCommand({ SecretId: ARN, Description: 'd' }))).rejects.toMatchObject(denied);
    await expect(reader.send(new DeleteSecretCommand({ SecretId: ARN }))).rejects.toMatchObject(denied);
    await expect(reader.send(new CreateSecretCommand({ Name: 'shop/staging/NEW', SecretString: 'n' }))).rejects.toMatchObject(denied);
    const described = await reader.send(new DescribeSecretCommand({ SecretId: ARN }));
    expect(described).toMatchObject({ Tags: [], VersionIdsToStages: { [Object.keys(described.VersionIdsToStages!)[0]!]: ['AWSCURRENT'] } });
    expect(described.Description).toBeUndefined();
    // A key that may not read the secret does not learn it exists, even when it may write elsewhere.
    const elsewhere = client(await awsKey(ws, { permissions: [{ projects: ['other'], actions: ['read', 'write', 'delete'] }] }));
    await expect(elsewhere.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'x' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await expect(elsewhere.send(new DeleteSecretCommand({ SecretId: ARN }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
