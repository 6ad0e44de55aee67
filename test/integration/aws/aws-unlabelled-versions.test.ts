import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
  type UpdateSecretVersionStageCommandInput,
} from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { derivedVersionId } from '../../../shared/secrets/secret-names.ts';
import { call, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client, awsClientEnvironment } from './support.ts';

/**
 * Versions without labels (decisions.md, "The AWS API for Terraform and External Secrets Operator"): once two newer
 * versions exist a version carries no label, and it stays addressable by its VersionId, whether a write's
 * ClientRequestToken named it or the service derived it (REST writes): GetSecretValue answers it with
 * `VersionStages: []` under that VersionId (Terraform's aws_secretsmanager_secret_version reads it so on every
 * refresh), UpdateSecretVersionStage moves labels onto it (a rollback), ListSecretVersionIds with IncludeDeprecated
 * lists it. A VersionId and a VersionStage of different versions are InvalidRequestException; a label on another
 * version moves only when RemoveFromVersionId names that version (InvalidParameterException otherwise).
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

const token = (n: number) => `${String(n).padStart(8, '0')}-3333-4333-8333-333333333333`;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: { name: string }) => error.name,
  );

describe('versions without labels through the AWS SDK', () => {
  let ws: Ws;
  let envId: string;
  let sm: ReturnType<typeof client>;
  let key: Awaited<ReturnType<typeof awsKey>>;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'unlabelled', environment: 'prod' })).environment.id;
    key = await awsKey(ws);
    sm = client(key);
  });

  const secretIdOf = async (name: string) => {
    const listed = (await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey })).body.data as {
      id: string;
      key: string;
    }[];
    return listed.find((item) => item.key === name)!.id;
  };
  const restValue = async (id: string) =>
    (await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey, body: {} })).body.data.value;
  const stagesOf = async (SecretId: string) => (await sm.send(new DescribeSecretCommand({ SecretId }))).VersionIdsToStages;
  const move = (input: Omit<UpdateSecretVersionStageCommandInput, 'SecretId'> & { SecretId: string }) =>
    sm.send(new UpdateSecretVersionStageCommand(input));

  it('a version written with a ClientRequestToken: read by its VersionId, listed, and made current again', async () => {
    // Prepare: three writes, each with its token; the first is left without a label.
    const { ARN } = await sm.send(
      new CreateSecretCommand({ Name: 'unlabelled/prod/TOKENED', SecretString: 'one', ClientRequestToken: token(1) }),
    );
    await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'two', ClientRequestToken: token(2) }));
    await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'three', ClientRequestToken: token(3) }));

    // Act 1: read it by VersionId (by ARN, as Terraform does) and list the versions.
    const read = await sm.send(new GetSecretValueCommand({ SecretId: ARN!, VersionId: token(1) }));
    const all = await sm.send(new ListSecretVersionIdsCommand({ SecretId: ARN, IncludeDeprecated: true }));
    const labelled = await sm.send(new ListSecretVersionIdsCommand({ SecretId: ARN }));

    // Assess 1
    expect(read).toMatchObject({ ARN, VersionId: token(1), SecretString: 'one', VersionStages: [] });
    expect(all.Versions?.map((version) => [version.VersionId, version.VersionStages])).toEqual([
      [token(3), ['AWSCURRENT']],
      [token(2), ['AWSPREVIOUS']],
      [token(1), []],
    ]);
    expect(labelled.Versions?.map((version) => version.VersionId)).toEqual([token(3), token(2)]);

    // Act 2: a rollback, AWSCURRENT moved back to it; then a custom label on the version that lost AWSPREVIOUS.
    await move({ SecretId: ARN!, VersionStage: 'AWSCURRENT', MoveToVersionId: token(1), RemoveFromVersionId: token(3) });
    await move({ SecretId: ARN!, VersionStage: 'blue', MoveToVersionId: token(2) });

    // Assess 2
    expect(await sm.send(new GetSecretValueCommand({ SecretId: ARN }))).toMatchObject({ VersionId: token(1), SecretString: 'one' });
    expect(await stagesOf(ARN!)).toEqual({ [token(1)]: ['AWSCURRENT'], [token(3)]: ['AWSPREVIOUS'], [token(2)]: ['blue'] });
    expect(await restValue(await secretIdOf('TOKENED'))).toBe('one');
    expect(await sm.send(new GetSecretValueCommand({ SecretId: ARN, VersionId: token(2), VersionStage: 'blue' }))).toMatchObject({
      VersionId: token(2),
      SecretString: 'two',
      VersionStages: ['blue'],
    });

    // Act 3: the next write takes the number after the highest, not after the one made current again.
    await sm.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: 'four', ClientRequestToken: token(4) }));

    // Assess 3
    const revealed = (await call('POST', `/api/v1/secrets/${await secretIdOf('TOKENED')}/reveal`, { token: ws.apiKey, body: {} })).body
      .data;
    expect(revealed).toMatchObject({ version: 4, value: 'four' });
    expect(await stagesOf(ARN!)).toEqual({ [token(4)]: ['AWSCURRENT'], [token(1)]: ['AWSPREVIOUS'], [token(2)]: ['blue'] });
    expect(await sm.send(new GetSecretValueCommand({ SecretId: ARN, VersionId: token(3) }))).toMatchObject({
      SecretString: 'three',
      VersionStages: [],
    });
  });

  it('a version written without a token (REST): read by its derived VersionId, listed, and made current again', async () => {
    // Prepare
    for (const value of ['a', 'b', 'c'])
      await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'PLAIN', value } });
    const SecretId = 'unlabelled/prod/PLAIN';
    const id = await secretIdOf('PLAIN');
    const [third, second, first] = [3, 2, 1].map((version) => derivedVersionId(id, version)) as [string, string, string];

    // Act
    const all = await sm.send(new ListSecretVersionIdsCommand({ SecretId, IncludeDeprecated: true }));
    const read = await sm.send(new GetSecretValueCommand({ SecretId, VersionId: first }));
    await move({ SecretId, VersionStage: 'AWSCURRENT', MoveToVersionId: first, RemoveFromVersionId: third });

    // Assess
    expect(all.Versions?.map((version) => [version.VersionId, version.VersionStages])).toEqual([
      [third, ['AWSCURRENT']],
      [second, ['AWSPREVIOUS']],
      [first, []],
    ]);
    expect(read).toMatchObject({ VersionId: first, SecretString: 'a', VersionStages: [] });
    expect(await stagesOf(SecretId)).toEqual({ [first]: ['AWSCURRENT'], [third]: ['AWSPREVIOUS'] });
    expect(await restValue(id)).toBe('a');
    expect(await sm.send(new GetSecretValueCommand({ SecretId, VersionId: second }))).toMatchObject({
      SecretString: 'b',
      VersionStages: [],
    });
  });

  it('the derived VersionId of a version written with a token names nothing, though the head no longer keeps its token', async () => {
    // Prepare
    const SecretId = 'unlabelled/prod/NOT_DERIVED';
    await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'one', ClientRequestToken: token(21) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'two', ClientRequestToken: token(22) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'three', ClientRequestToken: token(23) }));
    const notItsId = derivedVersionId(await secretIdOf('NOT_DERIVED'), 1);

    // Act
    const moved = await failure(move({ SecretId, VersionStage: 'blue', MoveToVersionId: notItsId }));
    const read = await failure(sm.send(new GetSecretValueCommand({ SecretId, VersionId: notItsId })));

    // Assess
    expect(moved).toBe('ResourceNotFoundException');
    expect(read).toBe('ResourceNotFoundException');
    expect(await stagesOf(SecretId)).toEqual({ [token(23)]: ['AWSCURRENT'], [token(22)]: ['AWSPREVIOUS'] });
  });

  it('GetSecretValue with a VersionId and a VersionStage of different versions is InvalidRequestException', async () => {
    // Prepare
    const SecretId = 'unlabelled/prod/MISMATCH';
    await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'one', ClientRequestToken: token(31) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'two', ClientRequestToken: token(32) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'three', ClientRequestToken: token(33) }));
    const get = (VersionId: string, VersionStage: string) =>
      failure(sm.send(new GetSecretValueCommand({ SecretId, VersionId, VersionStage })));

    // Act
    const outcomes = {
      previousAsCurrent: await get(token(32), 'AWSCURRENT'),
      unlabelledAsPrevious: await get(token(31), 'AWSPREVIOUS'),
      labelOnNoVersion: await get(token(33), 'AWSPENDING'),
      same: await get(token(32), 'AWSPREVIOUS'),
      noSuchVersion: await get(token(39), 'AWSCURRENT'),
    };

    // Assess
    expect(outcomes).toEqual({
      previousAsCurrent: 'InvalidRequestException',
      unlabelledAsPrevious: 'InvalidRequestException',
      labelOnNoVersion: 'InvalidRequestException',
      same: 'answered',
      noSuchVersion: 'ResourceNotFoundException',
    });
  });

  it('UpdateSecretVersionStage of a label on another version without RemoveFromVersionId naming it is InvalidParameterException', async () => {
    // Prepare
    const SecretId = 'unlabelled/prod/RULES';
    await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'one', ClientRequestToken: token(41) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'two', ClientRequestToken: token(42) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'three', ClientRequestToken: token(43) }));
    const before = await stagesOf(SecretId);
    const attempt = (input: Omit<UpdateSecretVersionStageCommandInput, 'SecretId'>) => failure(move({ SecretId, ...input }));

    // Act
    const outcomes = {
      withoutRemoveFrom: await attempt({ VersionStage: 'AWSCURRENT', MoveToVersionId: token(41) }),
      removeFromNamingNoVersion: await attempt({ VersionStage: 'AWSCURRENT', MoveToVersionId: token(41), RemoveFromVersionId: token(49) }),
      removeFromAnother: await attempt({ VersionStage: 'AWSCURRENT', MoveToVersionId: token(41), RemoveFromVersionId: token(42) }),
      previousWithoutRemoveFrom: await attempt({ VersionStage: 'AWSPREVIOUS', MoveToVersionId: token(41) }),
      // A VersionId that names no version, when no label rule is broken, is not found.
      moveToNoVersion: await attempt({ VersionStage: 'blue', MoveToVersionId: token(49) }),
      removeFromNoVersion: await attempt({ VersionStage: 'blue', RemoveFromVersionId: token(49) }),
    };

    // Assess
    expect(outcomes).toEqual({
      withoutRemoveFrom: 'InvalidParameterException',
      removeFromNamingNoVersion: 'InvalidParameterException',
      removeFromAnother: 'InvalidParameterException',
      previousWithoutRemoveFrom: 'InvalidParameterException',
      moveToNoVersion: 'ResourceNotFoundException',
      removeFromNoVersion: 'ResourceNotFoundException',
    });
    expect(await stagesOf(SecretId)).toEqual(before);
  });

  const AWS_CLI = '/usr/bin/aws';
  const PYTHON = '/usr/bin/python3';
  it.skipIf(!existsSync(AWS_CLI) || !existsSync(PYTHON))('boto3 reads a version without labels by its VersionId', async () => {
    // Prepare: boto3 sends a ClientRequestToken of its own with each write; two later writes take the labels off the first.
    const env = { ...awsClientEnvironment(key) };
    const script = `
import json, sys, boto3
sm = boto3.client("secretsmanager", endpoint_url=sys.argv[1])
first = sm.create_secret(Name="unlabelled/prod/BOTO", SecretString="first")["VersionId"]
sm.put_secret_value(SecretId="unlabelled/prod/BOTO", SecretString="second")
sm.put_secret_value(SecretId="unlabelled/prod/BOTO", SecretString="third")
got = sm.get_secret_value(SecretId="unlabelled/prod/BOTO", VersionId=first)
print(json.dumps({"first": first, "got": {k: got[k] for k in ("VersionId", "SecretString", "VersionStages")}}))
`;

    // Act
    const { stdout } = await promisify(execFile)(PYTHON, ['-c', script, inject('stack').baseUrl], { env });

    // Assess
    const out = JSON.parse(stdout);
    expect(out.got).toEqual({ VersionId: out.first, SecretString: 'first', VersionStages: [] });
  });
});
