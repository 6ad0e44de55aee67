import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
} from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, it } from 'vitest';
import { newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { INITIAL_VERSION, NoSecretError, deletePushed, getAllSecrets, getSecret, pushSecret, secretExists } from './eso-provider.ts';
import { awsKey, client } from './support.ts';

/**
 * External Secrets Operator's AWS Secrets Manager provider against the local stack (decisions.md v1.4, "The AWS API
 * for Terraform and External Secrets Operator"): its call sequences, replayed by eso-provider.ts from
 * external-secrets/external-secrets v2.9.0 (commit cc5bfbc2234ace9cb0caff4ea89c435cf517b27b),
 * providers/v1/aws/secretsmanager/secretsmanager.go (GetSecret, GetAllSecrets, PushSecret, DeleteSecret,
 * SecretExists), resolver.go (`AWS_SECRETSMANAGER_ENDPOINT`) and providers/v1/aws/util/ (tags, delete input). Each
 * test asserts what the controller reads of the answers: the value's bytes, `Tags`, `VersionIdsToStages`, `ARN`, and
 * the error types it branches on.
 */

describe("External Secrets Operator's AWS provider, replayed", () => {
  let sm: ReturnType<typeof client>;
  beforeAll(async () => {
    const ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'eso-app', environment: 'prod' });
    sm = client(await awsKey(ws));
  });

  const text = (buffer: Buffer) => buffer.toString('utf8');

  it('ExternalSecret data: by name, by uuid/ VersionId (also unlabelled), by VersionStage, a property, metadataPolicy Fetch', async () => {
    const first = await sm.send(
      new CreateSecretCommand({
        Name: 'eso-app/prod/DB',
        SecretString: '{"user":"app","port":5432}',
        Tags: [{ Key: 'team', Value: 'db' }],
      }),
    );
    await sm.send(new PutSecretValueCommand({ SecretId: 'eso-app/prod/DB', SecretString: '{"user":"app2","port":5432}' }));
    expect(text(await getSecret(sm, { key: 'eso-app/prod/DB' }))).toBe('{"user":"app2","port":5432}');
    expect(text(await getSecret(sm, { key: 'eso-app/prod/DB', version: 'AWSPREVIOUS', property: 'user' }))).toBe('app');
    expect(text(await getSecret(sm, { key: 'eso-app/prod/DB', version: `uuid/${first.VersionId}`, property: 'port' }))).toBe('5432');
    await sm.send(new PutSecretValueCommand({ SecretId: 'eso-app/prod/DB', SecretString: '{"user":"app3"}' }));
    // Two newer versions: the first carries no label and still answers its uuid/ reference.
    expect(text(await getSecret(sm, { key: 'eso-app/prod/DB', version: `uuid/${first.VersionId}`, property: 'user' }))).toBe('app');
    expect(JSON.parse(text(await getSecret(sm, { key: 'eso-app/prod/DB', metadataPolicy: 'Fetch' })))).toEqual({ team: 'db' });
    expect(text(await getSecret(sm, { key: first.ARN! }))).toBe('{"user":"app3"}');
  });

  it('what the controller calls "no secret", and what it reports as an error (as AWS answers it)', async () => {
    await expect(getSecret(sm, { key: 'eso-app/prod/MISSING' })).rejects.toBeInstanceOf(NoSecretError);
    await sm.send(new CreateSecretCommand({ Name: 'eso-app/prod/EMPTY' }));
    await expect(getSecret(sm, { key: 'eso-app/prod/EMPTY' })).rejects.toBeInstanceOf(NoSecretError);
    await expect(getSecret(sm, { key: 'eso-app/prod/DB', version: 'NOPE' })).rejects.toBeInstanceOf(NoSecretError);
    await sm.send(new CreateSecretCommand({ Name: 'eso-app/prod/GONE', SecretString: 'x' }));
    await sm.send(new DeleteSecretCommand({ SecretId: 'eso-app/prod/GONE', RecoveryWindowInDays: 7 }));
    await expect(getSecret(sm, { key: 'eso-app/prod/GONE' })).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: expect.stringContaining('was marked for deletion'),
    });
  });

  it('ExternalSecret dataFrom.find: a name regexp (ListSecrets, Filters []), tags and a path (BatchGetSecretValue)', async () => {
    for (const [name, tier] of [
      ['FIND_A', 'gold'],
      ['FIND_B', 'gold'],
      ['FIND_C', 'silver'],
    ])
      await sm.send(
        new CreateSecretCommand({ Name: `eso-app/prod/${name}`, SecretString: `value ${name}`, Tags: [{ Key: 'tier', Value: tier! }] }),
      );
    const names = (data: Record<string, Buffer>) => Object.keys(data).sort();
    const byName = await getAllSecrets(sm, { name: '^eso-app/prod/FIND_[AB]$' });
    expect(names(byName)).toEqual(['eso-app/prod/FIND_A', 'eso-app/prod/FIND_B']);
    expect(text(byName['eso-app/prod/FIND_A']!)).toBe('value FIND_A');
    expect(names(await getAllSecrets(sm, { tags: { tier: 'gold' } }))).toEqual(['eso-app/prod/FIND_A', 'eso-app/prod/FIND_B']);
    expect(names(await getAllSecrets(sm, { tags: { tier: 'silver' }, path: 'eso-app/prod/' }))).toEqual(['eso-app/prod/FIND_C']);
    expect(names(await getAllSecrets(sm, { name: 'FIND_[BC]', path: 'eso-app/prod/FIND' }))).toEqual([
      'eso-app/prod/FIND_B',
      'eso-app/prod/FIND_C',
    ]);
    expect(names(await getAllSecrets(sm, { name: 'FIND', tags: { tier: 'silver' } }))).toEqual(['eso-app/prod/FIND_C']);
  });

  it('PushSecret: CreateSecret with SecretBinary, its token, alias/aws/secretsmanager and managed-by; repeat, update', async () => {
    const bytes = Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x0a]);
    await pushSecret(sm, 'eso-app/prod/PUSHED', bytes, { tags: { owner: 'team-a' } });
    const created = await sm.send(new DescribeSecretCommand({ SecretId: 'eso-app/prod/PUSHED' }));
    expect(created).toMatchObject({
      Description: "secret 'managed-by:external-secrets'",
      Tags: [
        { Key: 'managed-by', Value: 'external-secrets' },
        { Key: 'owner', Value: 'team-a' },
      ],
      VersionIdsToStages: { [INITIAL_VERSION]: ['AWSCURRENT'] },
    });
    expect(Buffer.from((await sm.send(new GetSecretValueCommand({ SecretId: 'eso-app/prod/PUSHED' }))).SecretBinary!)).toEqual(bytes);
    expect(await getSecret(sm, { key: 'eso-app/prod/PUSHED' })).toEqual(bytes);
    // The same value again: the controller compares the bytes answered and writes nothing.
    await pushSecret(sm, 'eso-app/prod/PUSHED', bytes, { tags: { owner: 'team-a' } });
    expect(Object.keys((await sm.send(new DescribeSecretCommand({ SecretId: 'eso-app/prod/PUSHED' }))).VersionIdsToStages!)).toEqual([
      INITIAL_VERSION,
    ]);
    const next = '11111111-2222-4333-8444-555555555555';
    await pushSecret(sm, 'eso-app/prod/PUSHED', Buffer.from('v2'), { secretPushFormat: 'string', tags: { owner: 'team-b' } }, () => next);
    const updated = await sm.send(new DescribeSecretCommand({ SecretId: 'eso-app/prod/PUSHED' }));
    expect(updated.VersionIdsToStages).toEqual({ [INITIAL_VERSION]: ['AWSPREVIOUS'], [next]: ['AWSCURRENT'] });
    expect(updated.Tags).toEqual([
      { Key: 'managed-by', Value: 'external-secrets' },
      { Key: 'owner', Value: 'team-b' },
    ]);
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'eso-app/prod/PUSHED' }))).SecretString).toBe('v2');
  });

  it('PushSecret onto a secret without a value (made by Terraform, tagged for ESO) writes the first version; others refused', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'eso-app/prod/SHELL', Tags: [{ Key: 'managed-by', Value: 'external-secrets' }] }));
    await pushSecret(sm, 'eso-app/prod/SHELL', Buffer.from('first'));
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'eso-app/prod/SHELL' }))).VersionId).toBe(INITIAL_VERSION);
    await sm.send(new CreateSecretCommand({ Name: 'eso-app/prod/OTHERS', SecretString: 'theirs' }));
    await expect(pushSecret(sm, 'eso-app/prod/OTHERS', Buffer.from('mine'))).rejects.toThrow('secret not managed by external-secrets');
  });

  it('PushSecret deletion: the 30-day default holds the name; forceDeleteWithoutRecovery frees it and the first token again', async () => {
    await pushSecret(sm, 'eso-app/prod/HELD', Buffer.from('held'));
    expect(await deletePushed(sm, 'eso-app/prod/HELD')).toBe('deleted');
    const held = await sm.send(new DescribeSecretCommand({ SecretId: 'eso-app/prod/HELD' }));
    expect(held.DeletedDate).toBeInstanceOf(Date);
    await expect(secretExists(sm, 'eso-app/prod/HELD')).rejects.toMatchObject({ name: 'InvalidRequestException' });
    await expect(pushSecret(sm, 'eso-app/prod/HELD', Buffer.from('again'))).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: expect.stringContaining('marked for deletion'),
    });

    await pushSecret(sm, 'eso-app/prod/FORCED', Buffer.from('one'));
    expect(await deletePushed(sm, 'eso-app/prod/FORCED', { forceDeleteWithoutRecovery: true })).toBe('deleted');
    expect(await secretExists(sm, 'eso-app/prod/FORCED')).toBe(false);
    await pushSecret(sm, 'eso-app/prod/FORCED', Buffer.from('two'));
    const recreated = await sm.send(new GetSecretValueCommand({ SecretId: 'eso-app/prod/FORCED' }));
    expect([recreated.VersionId, Buffer.from(recreated.SecretBinary!).toString()]).toEqual([INITIAL_VERSION, 'two']);

    await pushSecret(sm, 'eso-app/prod/WEEK', Buffer.from('w'));
    expect(await deletePushed(sm, 'eso-app/prod/WEEK', { recoveryWindowInDays: 7 })).toBe('deleted');
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'eso-app/prod/WEEK' }))).DeletedDate).toBeInstanceOf(Date);
    expect(await deletePushed(sm, 'eso-app/prod/NEVER_PUSHED')).toBe('absent');
  });
});
