import {
  CreateSecretCommand,
  DeleteResourcePolicyCommand,
  GetResourcePolicyCommand,
  PutResourcePolicyCommand,
  ValidateResourcePolicyCommand,
} from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, it } from 'vitest';
import { localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from './support.ts';

/**
 * Resource policies (decisions.md v1.4): Terraform's `aws_secretsmanager_secret` reads one on every refresh and
 * deletes one when none is configured. None can be attached (an access key's permissions are the policy), so the
 * reads answer none, under the same permissions a read and a write need; attaching or validating one is refused.
 */
describe('GetResourcePolicy, DeleteResourcePolicy, PutResourcePolicy and ValidateResourcePolicy', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  let owner: Awaited<ReturnType<typeof awsKey>>;
  let arn: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'tf', environment: 'prod' });
    owner = await awsKey(ws);
    arn = (await client(owner).send(new CreateSecretCommand({ Name: 'tf/prod/DB', SecretString: 'x' }))).ARN!;
  });

  it('GetResourcePolicy answers the ARN and Name with no ResourcePolicy; DeleteResourcePolicy changes nothing', async () => {
    const sm = client(owner);
    const got = await sm.send(new GetResourcePolicyCommand({ SecretId: 'tf/prod/DB' }));
    expect(got).toMatchObject({ ARN: arn, Name: 'tf/prod/DB' });
    expect(got.ResourcePolicy).toBeUndefined();
    expect(await sm.send(new DeleteResourcePolicyCommand({ SecretId: arn }))).toMatchObject({ ARN: arn, Name: 'tf/prod/DB' });
    expect(await sm.send(new GetResourcePolicyCommand({ SecretId: arn }))).toMatchObject({ ARN: arn, Name: 'tf/prod/DB' });
    await expect(sm.send(new GetResourcePolicyCommand({ SecretId: 'tf/prod/NOPE' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('needs read to get and write to delete: a read-only key may get, not delete (AccessDeniedException, audited)', async () => {
    const reader = client(await awsKey(ws, { permissions: [{ projects: ['tf'], actions: ['read'] }] }));
    expect((await reader.send(new GetResourcePolicyCommand({ SecretId: arn }))).Name).toBe('tf/prod/DB');
    await expect(reader.send(new DeleteResourcePolicyCommand({ SecretId: arn }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    const denied = await localStore().store.listAudit(ws.workspaceId, { limit: 10 }, { action: 'access.denied' });
    expect(denied.items.map((entry) => entry.metadata.attemptedAction)).toContain('write');
    const elsewhere = client(await awsKey(ws, { permissions: [{ projects: ['other'], actions: ['read', 'write'] }] }));
    await expect(elsewhere.send(new GetResourcePolicyCommand({ SecretId: arn }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('PutResourcePolicy and ValidateResourcePolicy are InvalidRequestException naming access-key permissions', async () => {
    const sm = client(owner);
    const policy = JSON.stringify({ Version: '2012-10-17', Statement: [] });
    for (const command of [
      new PutResourcePolicyCommand({ SecretId: arn, ResourcePolicy: policy }),
      new ValidateResourcePolicyCommand({ SecretId: arn, ResourcePolicy: policy }),
    ])
      await expect(sm.send(command as never)).rejects.toMatchObject({
        name: 'InvalidRequestException',
        message: expect.stringContaining("access key's permissions"),
      });
  });
});
