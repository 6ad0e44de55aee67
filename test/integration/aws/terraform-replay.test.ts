import { CreateSecretCommand, DescribeSecretCommand } from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, it } from 'vitest';
import { newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from './support.ts';
import { secretDataSource, secretsDataSource, secretVersionDataSource } from './terraform-data-sources.ts';
import {
  CURRENT,
  PREVIOUS,
  createRetries,
  createSecret,
  createVersion,
  deleteSecret,
  deleteVersion,
  readSecret,
  readVersion,
  updateSecret,
  updateVersionStages,
} from './terraform-provider.ts';

/**
 * Terraform's `aws` provider against the local stack (decisions.md v1.4, "The AWS API for Terraform and External
 * Secrets Operator"): its exact call sequences, replayed by terraform-provider.ts and terraform-data-sources.ts from
 * hashicorp/terraform-provider-aws, internal/service/secretsmanager/ (provider v6, aws-sdk-go-v2):
 * secret.go @ 00c21cedec069dd27093b175baf15bac6d4b30fe (create with its own ClientRequestToken and the retry on
 * "scheduled for deletion", refresh = DescribeSecret + GetResourcePolicy, update, delete, `findSecretByID`),
 * secret_version.go @ 0042e8ea0de293c6cd8b003f89f7f4d2fb5fcf31 (v6.10+), secret_policy.go (`findSecretPolicyByID`),
 * secret_data_source.go @ 0413c661ec1b94f3033c98f3fbd1e8c1b2725589, secret_version_data_source.go
 * @ 91d58ba9a6955fb67efa6bcac4e25c77abffc06d, secrets_data_source.go @ 01606926a0c0ab9174aec440f976a48b0baee722,
 * tags_gen.go (UntagResource, then TagResource). Each test asserts what the provider keeps in its state or waits on.
 */

describe("Terraform's aws provider, replayed", () => {
  let sm: ReturnType<typeof client>;
  beforeAll(async () => {
    const ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'tf-app', environment: 'prod' });
    sm = client(await awsKey(ws));
  });

  it('aws_secretsmanager_secret: create without a value, refresh, update of description and tags, no diff after', async () => {
    const config = { name: 'tf-app/prod/DB_PASSWORD', description: 'the database', tags: { team: 'payments', env: 'prod' } };
    const state = await createSecret(sm, config);
    expect(state).toEqual({
      id: state.arn,
      arn: expect.stringMatching(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:tf-app\/prod\/DB_PASSWORD-[A-Za-z0-9]{6}$/),
      description: 'the database',
      kms_key_id: '',
      name: 'tf-app/prod/DB_PASSWORD',
      policy: '',
      tags: { env: 'prod', team: 'payments' },
    });
    expect((await sm.send(new DescribeSecretCommand({ SecretId: state.arn }))).VersionIdsToStages).toBeUndefined();
    const changed = { ...config, description: 'the primary database', tags: { team: 'ledger', owner: 'ops' } };
    const updated = await updateSecret(sm, state, changed);
    expect(updated).toEqual({ ...state, description: 'the primary database', tags: { owner: 'ops', team: 'ledger' } });
    // A plan right after: the refresh answers what the configuration says, so nothing to change.
    expect(await readSecret(sm, state.id)).toEqual(updated);
    // No description in the configuration is "" in the request and in the state alike.
    const bare = await createSecret(sm, { name: 'tf-app/prod/BARE' });
    expect(bare).toMatchObject({ description: '', tags: {}, policy: '' });
  });

  it('accepts kms_key_id = alias/aws/secretsmanager, and the create of provider v4 (ForceOverwriteReplicaSecret false)', async () => {
    const state = await createSecret(sm, { name: 'tf-app/prod/KMS', kms_key_id: 'alias/aws/secretsmanager' });
    const updated = await updateSecret(sm, state, {
      name: 'tf-app/prod/KMS',
      description: 'sealed',
      kms_key_id: 'alias/aws/secretsmanager',
    });
    expect(updated.description).toBe('sealed');
    // Provider v4 (aws-sdk-go v1, secret.go @ f583d818dd34f1ee2cdd6664b33ef588c860412a) sends the false flag and no token.
    const v4 = await sm.send(new CreateSecretCommand({ Description: '', ForceOverwriteReplicaSecret: false, Name: 'tf-app/prod/V4' }));
    expect(await readSecret(sm, v4.ARN!)).toMatchObject({ name: 'tf-app/prod/V4', description: '' });
  });

  it('terraform import by ARN reads the same state; a secret deleted elsewhere leaves the state on refresh', async () => {
    const made = await sm.send(
      new CreateSecretCommand({ Name: 'tf-app/prod/IMPORTED', SecretString: 'v', Tags: [{ Key: 'a', Value: '1' }] }),
    );
    const imported = await readSecret(sm, made.ARN!);
    expect(imported).toEqual({
      id: made.ARN,
      arn: made.ARN,
      description: '',
      kms_key_id: '',
      name: 'tf-app/prod/IMPORTED',
      policy: '',
      tags: { a: '1' },
    });
    await deleteSecret(sm, made.ARN!, 7);
    // DescribeSecret answers DeletedDate: `findSecretByID` calls that not found, and the refresh drops the resource.
    expect(await readSecret(sm, made.ARN!)).toBeUndefined();
  });

  it('destroy: the recovery window, the name held "scheduled for deletion" (retried); recovery_window_in_days = 0 frees it', async () => {
    const held = await createSecret(sm, { name: 'tf-app/prod/HELD' });
    await deleteSecret(sm, held.id);
    expect((await sm.send(new DescribeSecretCommand({ SecretId: held.arn }))).DeletedDate).toBeInstanceOf(Date);
    const again = await createSecret(sm, { name: 'tf-app/prod/HELD' }).catch((error: unknown) => error);
    expect(again).toMatchObject({ name: 'InvalidRequestException' });
    expect(createRetries(again)).toBe(true);

    const forced = await createSecret(sm, { name: 'tf-app/prod/FORCED' });
    await deleteSecret(sm, forced.id, 0);
    await expect(sm.send(new DescribeSecretCommand({ SecretId: forced.arn }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    // A second destroy of what is gone is done (ResourceNotFoundException), and the name is free at once.
    await deleteSecret(sm, forced.id, 0);
    const recreated = await createSecret(sm, { name: 'tf-app/prod/FORCED' });
    expect(recreated.arn).not.toBe(forced.arn);
  });

  it('aws_secretsmanager_secret_version: PutSecretValue with its token, refresh by VersionId, also once unlabelled', async () => {
    const secret = await createSecret(sm, { name: 'tf-app/prod/API_KEY' });
    const first = await createVersion(sm, { secret_id: secret.id, secret_string: 'one' });
    expect(first).toEqual({
      id: `${secret.arn}|${first.version_id}`,
      arn: secret.arn,
      secret_binary: '',
      secret_id: secret.arn,
      secret_string: 'one',
      version_id: expect.stringMatching(/^terraform-\d{20}[0-9a-f]{8}$/),
      version_stages: [CURRENT],
    });
    const second = await createVersion(sm, { secret_id: secret.id, secret_string: 'two' });
    expect((await readVersion(sm, first.id))?.version_stages).toEqual([PREVIOUS]);
    await createVersion(sm, { secret_id: secret.id, secret_string: 'three' });
    // Two newer versions: the first carries no label and still reads, under its own VersionId.
    expect(await readVersion(sm, first.id)).toEqual({ ...first, version_stages: [] });
    expect((await readVersion(sm, second.id))?.version_stages).toEqual([PREVIOUS]);

    const binary = Buffer.from([0, 159, 146, 150, 255]).toString('base64');
    const blob = await createVersion(sm, { secret_id: secret.id, secret_binary: binary });
    expect(blob).toMatchObject({ secret_binary: binary, secret_string: '', version_stages: [CURRENT] });
  });

  it('version_stages changed in place: AWSCURRENT moved with RemoveFromVersionId, a custom label added and removed', async () => {
    const secret = await createSecret(sm, { name: 'tf-app/prod/ROLLBACK' });
    const old = await createVersion(sm, { secret_id: secret.id, secret_string: 'old' });
    const latest = await createVersion(sm, { secret_id: secret.id, secret_string: 'new' });
    const rolledBack = await updateVersionStages(sm, (await readVersion(sm, old.id))!, [CURRENT, 'blue']);
    expect(rolledBack.version_stages).toEqual([CURRENT, 'blue']);
    expect((await readVersion(sm, latest.id))?.version_stages).toEqual([PREVIOUS]);
    expect((await updateVersionStages(sm, rolledBack, [CURRENT])).version_stages).toEqual([CURRENT]);
    // The provider moves a label that is on another version without RemoveFromVersionId: AWS refuses it, as here.
    const green = await createVersion(sm, { secret_id: secret.id, secret_string: 'green', version_stages: ['green'] });
    expect(green.version_stages).toEqual(['green']);
    await expect(updateVersionStages(sm, rolledBack, [CURRENT, 'green'])).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });

  it('destroy of a version: its labels but AWSCURRENT taken off, the wait reads it by VersionId; a deleted secret ends it', async () => {
    const secret = await createSecret(sm, { name: 'tf-app/prod/ROTATED' });
    const old = await createVersion(sm, { secret_id: secret.id, secret_string: 'old', version_stages: [CURRENT, 'blue'] });
    const latest = await createVersion(sm, { secret_id: secret.id, secret_string: 'new' });
    const previous = (await readVersion(sm, old.id))!;
    expect(previous.version_stages).toEqual([PREVIOUS, 'blue']);
    await deleteVersion(sm, previous);
    expect((await readVersion(sm, old.id))?.version_stages).toEqual([]);
    // Destroying the current one leaves it current (AWS cannot take AWSCURRENT off): the wait accepts that.
    await deleteVersion(sm, latest);
    expect((await readVersion(sm, latest.id))?.version_stages).toEqual([CURRENT]);

    await deleteSecret(sm, secret.id, 7);
    // The secret in its recovery window: the version reads as gone and its destroy ends at the "marked for deletion".
    expect(await readVersion(sm, latest.id)).toBeUndefined();
    await expect(deleteVersion(sm, { ...previous, version_stages: ['blue'] })).resolves.toBeUndefined();
  });

  it('data sources: aws_secretsmanager_secret, aws_secretsmanager_secret_version and aws_secretsmanager_secrets', async () => {
    const secret = await createSecret(sm, { name: 'tf-app/prod/DATA_URL', description: 'Legacy replica URL', tags: { tier: 'gold' } });
    const first = await createVersion(sm, { secret_id: secret.id, secret_string: 'postgres://one' });
    const second = await createVersion(sm, { secret_id: secret.id, secret_string: 'postgres://two' });
    const rfc3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
    for (const by of [{ name: 'tf-app/prod/DATA_URL' }, { arn: secret.arn }]) {
      expect(await secretDataSource(sm, by)).toEqual({
        arn: secret.arn,
        created_date: expect.stringMatching(rfc3339),
        description: 'Legacy replica URL',
        kms_key_id: '',
        last_changed_date: expect.stringMatching(rfc3339),
        name: 'tf-app/prod/DATA_URL',
        policy: '',
        tags: { tier: 'gold' },
      });
    }
    // version_stage defaults to AWSCURRENT and is sent; a version_id is sent alone.
    expect(await secretVersionDataSource(sm, { secret_id: secret.arn })).toEqual({
      id: `${secret.arn}|AWSCURRENT`,
      arn: secret.arn,
      created_date: expect.stringMatching(rfc3339),
      secret_binary: '',
      secret_string: 'postgres://two',
      version_id: second.version_id,
      version_stages: [CURRENT],
    });
    expect(await secretVersionDataSource(sm, { secret_id: 'tf-app/prod/DATA_URL', version_stage: PREVIOUS })).toMatchObject({
      secret_string: 'postgres://one',
      version_id: first.version_id,
    });
    expect(await secretVersionDataSource(sm, { secret_id: secret.arn, version_id: first.version_id })).toMatchObject({
      id: `${secret.arn}|${first.version_id}`,
      secret_string: 'postgres://one',
      version_stages: [PREVIOUS],
    });
    const bytes = Buffer.from('\u0000binary\u0001', 'latin1');
    const blob = await createSecret(sm, { name: 'tf-app/prod/DATA_BLOB' });
    await createVersion(sm, { secret_id: blob.id, secret_binary: bytes.toString('base64') });
    expect((await secretVersionDataSource(sm, { secret_id: blob.arn })).secret_binary).toBe(bytes.toString('latin1'));
    const empty = await createSecret(sm, { name: 'tf-app/prod/DATA_EMPTY' });
    await expect(secretVersionDataSource(sm, { secret_id: empty.arn })).rejects.toThrow(/couldn't find resource/);

    const listed = (filters: { name: string; values: string[] }[]) => secretsDataSource(sm, filters).then((found) => found.names);
    expect(await listed([{ name: 'name', values: ['tf-app/prod/DATA_'] }])).toEqual([
      'tf-app/prod/DATA_BLOB',
      'tf-app/prod/DATA_EMPTY',
      'tf-app/prod/DATA_URL',
    ]);
    expect(
      await listed([
        { name: 'tag-key', values: ['tier'] },
        { name: 'tag-value', values: ['gold'] },
      ]),
    ).toEqual(['tf-app/prod/DATA_URL']);
    expect(await listed([{ name: 'description', values: ['legacy'] }])).toEqual(['tf-app/prod/DATA_URL']);
    expect(await listed([{ name: 'all', values: ['rep'] }])).toEqual(['tf-app/prod/DATA_URL']);
    expect((await secretsDataSource(sm, [{ name: 'name', values: ['tf-app/prod/DATA_URL'] }])).arns).toEqual([secret.arn]);
  });
});
