import { SSMClient } from '@aws-sdk/client-ssm';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { type AwsClientConfig, awsClient, checkOwnAccount, checkRoleArn } from '../../../../shared/syncs/destinations/aws-credentials.ts';
import { DestinationError, type DestinationContext } from '../../../../shared/syncs/destinations/destination.ts';
import { destinationContext } from '../support.ts';

const PATTERNS = ['arn:aws:iam::*:role/secrets-sync-*'];

const contextOf = (over: Partial<DestinationContext> = {}) => destinationContext({ roleArns: PATTERNS, ...over });

const refusalOf = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(DestinationError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('who the AWS destinations write as (aws-credentials.ts)', () => {
  const sts = mockClient(STSClient);
  afterEach(() => sts.reset());

  it("checkRoleArn: a role must match syncRoleArns; the glob's * stops at /, ** does not", () => {
    expect(() => checkRoleArn('arn:aws:iam::111122223333:role/secrets-sync-ws_1', PATTERNS)).not.toThrow();
    expect(refusalOf(() => checkRoleArn('arn:aws:iam::111122223333:role/admin', PATTERNS))).toBe(
      'roleArn arn:aws:iam::111122223333:role/admin is not one this stack lets syncs assume (syncRoleArns)',
    );
    expect(refusalOf(() => checkRoleArn('arn:aws:iam::111122223333:role/team/secrets-sync-x', PATTERNS))).toContain('syncRoleArns');
    expect(() => checkRoleArn('arn:aws:iam::111122223333:role/team/secrets-sync-x', ['arn:aws:iam::*:role/**'])).not.toThrow();
    expect(refusalOf(() => checkRoleArn('arn:aws:iam::111122223333:role/secrets-sync-x', []))).toContain('syncRoleArns');
  });

  it('checkOwnAccount: no roleArn writes into the own account only with syncOwnAccount', () => {
    expect(refusalOf(() => checkOwnAccount({ ownAccount: false }))).toContain('syncOwnAccount');
    expect(() => checkOwnAccount({ ownAccount: true })).not.toThrow();
  });

  it('refuses before its cache: a client made once is not handed out when the role or own account is no longer allowed', () => {
    const place = { region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/secrets-sync-a' };
    const first = awsClient('ssm', (config) => new SSMClient(config), place, contextOf());
    expect(awsClient('ssm', (config) => new SSMClient(config), place, contextOf())).toBe(first);
    expect(refusalOf(() => awsClient('ssm', (config) => new SSMClient(config), place, contextOf({ roleArns: [] })))).toContain(
      'syncRoleArns',
    );
    const own = { region: 'eu-west-1' };
    awsClient('ssm', (config) => new SSMClient(config), own, contextOf({ ownAccount: true }));
    expect(refusalOf(() => awsClient('ssm', (config) => new SSMClient(config), own, contextOf()))).toContain('syncOwnAccount');
  });

  it('one client per (kind, region, endpoint, identity)', () => {
    const make = (config: AwsClientConfig) => new SSMClient(config);
    const own = contextOf({ ownAccount: true });
    const a = awsClient('ssm-cache', make, { region: 'eu-west-1' }, own);
    expect(awsClient('ssm-cache', make, { region: 'eu-west-1' }, own)).toBe(a);
    expect(awsClient('ssm-cache', make, { region: 'us-east-1' }, own)).not.toBe(a);
    const local = contextOf({
      ownAccount: true,
      awsEndpoint: { url: 'http://127.0.0.1:5000', accessKeyId: 'test', secretAccessKey: 'test' },
    });
    expect(awsClient('ssm-cache', make, { region: 'eu-west-1' }, local)).not.toBe(a);
  });

  it('assumes the role with its external id, a session named after the sync and 15 minutes, when the client signs', async () => {
    const expiration = new Date('2026-12-07T11:00:00Z');
    sts
      .on(AssumeRoleCommand)
      .resolves({ Credentials: { AccessKeyId: 'ASIA1', SecretAccessKey: 's', SessionToken: 't', Expiration: expiration } });
    const place = { region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/secrets-sync-b', externalId: 'ext-9' };
    const client = awsClient('ssm-assume', (config) => new SSMClient(config), place, contextOf({ syncId: 'sync_42' }));
    const credentials = await client.config.credentials();
    expect(credentials).toMatchObject({ accessKeyId: 'ASIA1', secretAccessKey: 's', sessionToken: 't', expiration });
    expect(sts.commandCalls(AssumeRoleCommand)[0]!.args[0].input).toEqual({
      RoleArn: place.roleArn,
      RoleSessionName: 'secrets-sync-sync_42',
      DurationSeconds: 900,
      ExternalId: 'ext-9',
    });
  });

  it("an AssumeRole refusal is a DestinationError naming STS's code and status", async () => {
    sts.on(AssumeRoleCommand).rejects(
      Object.assign(new Error('User is not authorized to perform: sts:AssumeRole'), {
        name: 'AccessDenied',
        $metadata: { httpStatusCode: 403 },
      }),
    );
    const place = { region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/secrets-sync-c' };
    const client = awsClient('ssm-denied', (config) => new SSMClient(config), place, contextOf());
    const error = await client.config.credentials().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DestinationError);
    expect((error as Error).message).toBe(
      'STS AssumeRole arn:aws:iam::111122223333:role/secrets-sync-c: AccessDenied (403): User is not authorized to perform: sts:AssumeRole',
    );
  });
});
