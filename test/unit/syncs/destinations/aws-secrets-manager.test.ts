import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { jsonValue, makeAwsSecretsManagerDestination } from '../../../../shared/syncs/destinations/aws-secrets-manager.ts';
import { DestinationError } from '../../../../shared/syncs/destinations/destination.ts';
import type { AwsSecretsManagerDestination } from '../../../../shared/syncs/sync-records.ts';
import { destinationContext } from '../support.ts';

const context = destinationContext({ ownAccount: true });
const awsError = (name: string, message: string) => Object.assign(new Error(message), { name, $metadata: { httpStatusCode: 400 } });
const DELETED = "You can't perform this operation on the secret because it was marked for deletion.";
const perKey: AwsSecretsManagerDestination = {
  type: 'aws-secrets-manager',
  region: 'eu-west-1',
  namePrefix: 'app/prod/',
  kmsKeyId: 'alias/k',
};
const json: AwsSecretsManagerDestination = { type: 'aws-secrets-manager', region: 'eu-west-1', namePrefix: 'app/prod', mode: 'json' };

describe('the Secrets Manager destination (aws-secrets-manager.ts)', () => {
  const sm = mockClient(SecretsManagerClient);
  beforeEach(() => {
    sm.reset();
    sm.onAnyCommand().resolves({});
  });
  const inputs = (command: Parameters<typeof sm.commandCalls>[0]) => sm.commandCalls(command).map((call) => call.args[0].input);

  it('secret-per-key: PutSecretValue, and CreateSecret under kmsKeyId when the secret does not exist yet', async () => {
    sm.on(PutSecretValueCommand, { SecretId: 'app/prod/NEW' }).rejects(awsError('ResourceNotFoundException', 'not found'));
    const destination = makeAwsSecretsManagerDestination(perKey, context);
    expect(destination.wholeEnvironment).toBe(false);
    await destination.put([
      { key: 'OLD', value: 'o' },
      { key: 'NEW', value: 'n' },
    ]);
    expect(inputs(PutSecretValueCommand)).toEqual([
      { SecretId: 'app/prod/OLD', SecretString: 'o' },
      { SecretId: 'app/prod/NEW', SecretString: 'n' },
    ]);
    expect(inputs(CreateSecretCommand)).toEqual([{ Name: 'app/prod/NEW', SecretString: 'n', KmsKeyId: 'alias/k' }]);
  });

  it('restores a secret waiting out its recovery window, and writes over one created in between', async () => {
    sm.on(PutSecretValueCommand, { SecretId: 'app/prod/BACK' }).rejectsOnce(awsError('InvalidRequestException', DELETED)).resolves({});
    sm.on(PutSecretValueCommand, { SecretId: 'app/prod/RACE' }).rejectsOnce(awsError('ResourceNotFoundException', 'x')).resolves({});
    sm.on(CreateSecretCommand).rejects(awsError('ResourceExistsException', 'exists'));
    await makeAwsSecretsManagerDestination(perKey, context).put([
      { key: 'BACK', value: 'b' },
      { key: 'RACE', value: 'r' },
    ]);
    expect(inputs(RestoreSecretCommand)).toEqual([{ SecretId: 'app/prod/BACK' }]);
    expect(inputs(PutSecretValueCommand).map((input) => input.SecretId)).toEqual([
      'app/prod/BACK',
      'app/prod/BACK',
      'app/prod/RACE',
      'app/prod/RACE',
    ]);
  });

  it('deletes with a 7-day recovery window; not found or already scheduled is no error, anything else is', async () => {
    sm.on(DeleteSecretCommand, { SecretId: 'app/prod/GONE' }).rejects(awsError('ResourceNotFoundException', 'x'));
    sm.on(DeleteSecretCommand, { SecretId: 'app/prod/SCHEDULED' }).rejects(awsError('InvalidRequestException', DELETED));
    sm.on(DeleteSecretCommand, { SecretId: 'app/prod/DENIED' }).rejects(awsError('AccessDeniedException', 'no'));
    const destination = makeAwsSecretsManagerDestination(perKey, context);
    await destination.remove(['A', 'GONE', 'SCHEDULED']);
    expect(inputs(DeleteSecretCommand)[0]).toEqual({ SecretId: 'app/prod/A', RecoveryWindowInDays: 7 });
    const error = await destination.remove(['DENIED']).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as Error).message).toBe('Secrets Manager DeleteSecret app/prod/DENIED: AccessDeniedException (400): no');
  });

  it('json: one secret namePrefix holding exactly the values handed (the whole environment), in key order', async () => {
    const destination = makeAwsSecretsManagerDestination(json, context);
    expect(destination.wholeEnvironment).toBe(true);
    await destination.put([
      { key: 'B', value: '2' },
      { key: 'A', value: '1' },
    ]);
    expect(inputs(PutSecretValueCommand)).toEqual([{ SecretId: 'app/prod', SecretString: '{"A":"1","B":"2"}' }]);
    expect(jsonValue([])).toBe('{}');
  });

  it('json remove: the object rewritten without the keys; nothing when none is in it or the secret is not there', async () => {
    sm.on(GetSecretValueCommand).resolvesOnce({ SecretString: '{"A":"1","B":"2"}' }).resolvesOnce({ SecretString: '{"B":"2"}' });
    const destination = makeAwsSecretsManagerDestination(json, context);
    await destination.remove(['A']);
    await destination.remove(['A']);
    expect(inputs(PutSecretValueCommand)).toEqual([{ SecretId: 'app/prod', SecretString: '{"B":"2"}' }]);
    sm.on(GetSecretValueCommand).rejects(awsError('ResourceNotFoundException', 'x'));
    await destination.remove(['B']);
    expect(inputs(PutSecretValueCommand)).toHaveLength(1);
  });

  it('json remove refuses a secret that is not a JSON object of strings, without quoting it', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: 'plain-secret-text' });
    const error = await makeAwsSecretsManagerDestination(json, context)
      .remove(['A'])
      .catch((thrown: unknown) => thrown);
    expect((error as Error).message).toBe('Secrets Manager app/prod: its value is not a JSON object of strings, which json mode writes');
  });

  it("drops AWS's message when it quotes a value being pushed", async () => {
    sm.on(PutSecretValueCommand).rejects(awsError('InvalidParameterException', 'bad value s3cr3t-value'));
    const error = await makeAwsSecretsManagerDestination(perKey, context)
      .put([{ key: 'K', value: 's3cr3t-value' }])
      .catch((thrown: unknown) => thrown);
    expect((error as Error).message).toBe('Secrets Manager PutSecretValue app/prod/K: InvalidParameterException (400)');
  });
});
