import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  TagResourceCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from './support.ts';

/**
 * Staging labels through the AWS SDK (decisions.md, "Rotation"): a version written without AWSCURRENT is not current
 * for any reveal (REST, bulk, AWS) and fires no rotate; UpdateSecretVersionStage moves labels by AWS's rules, and
 * moving AWSCURRENT is a rotate (audit, and so the event) that every reader follows.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

const token = (n: number) => `${String(n).padStart(8, '0')}-2222-4222-8222-222222222222`;

async function audited(ws: Ws, target: string) {
  const page = await localStore().store.listAudit(ws.workspaceId, { limit: 50 }, { target });
  return page.items.reverse().map((entry) => ({ action: entry.action, version: entry.metadata.version }));
}

describe('staging labels through the AWS API', () => {
  let ws: Ws;
  let envId: string;
  let sm: ReturnType<typeof client>;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'labels', environment: 'prod' })).environment.id;
    sm = client(await awsKey(ws));
  });

  const restReveal = async (id: string) =>
    (await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey, body: {} })).body.data as { version: number; value: string };
  const bulkValue = async (key: string) => {
    const loaded = await call('POST', `/api/v1/environments/${envId}/secrets/reveal`, { token: ws.apiKey, body: {} });
    return (loaded.body.data as { key: string; value: string; version: number }[]).find((item) => item.key === key);
  };

  it('a version written with AWSPENDING is not current anywhere until AWSCURRENT moves to it, and then everywhere', async () => {
    const SecretId = 'labels/prod/DB_PASSWORD';
    await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'one', ClientRequestToken: token(1) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'two', ClientRequestToken: token(2) }));

    // Act 1: a pending version.
    const pending = await sm.send(
      new PutSecretValueCommand({ SecretId, SecretString: 'three', ClientRequestToken: token(3), VersionStages: ['AWSPENDING'] }),
    );

    // Assess 1
    expect(pending).toMatchObject({ VersionId: token(3), VersionStages: ['AWSPENDING'] });
    expect(await sm.send(new GetSecretValueCommand({ SecretId }))).toMatchObject({ SecretString: 'two', VersionId: token(2) });
    expect(await sm.send(new GetSecretValueCommand({ SecretId, VersionStage: 'AWSPENDING' }))).toMatchObject({
      SecretString: 'three',
      VersionStages: ['AWSPENDING'],
    });
    const described = await sm.send(new DescribeSecretCommand({ SecretId }));
    expect(described.VersionIdsToStages).toEqual({
      [token(3)]: ['AWSPENDING'],
      [token(2)]: ['AWSCURRENT'],
      [token(1)]: ['AWSPREVIOUS'],
    });
    const id = (await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey })).body.data[0].id as string;
    expect(await restReveal(id)).toMatchObject({ version: 2, value: 'two' });
    expect(await bulkValue('DB_PASSWORD')).toMatchObject({ version: 2, value: 'two' });
    const record = (await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data;
    expect(record.currentVersion).toBe(2);
    expect(Object.keys(record)).not.toEqual(expect.arrayContaining(['labels']));
    const history = (await call('GET', `/api/v1/secrets/${id}/versions`, { token: ws.apiKey })).body.data;
    expect(history.map((item: { version: number; stages: string[] }) => [item.version, item.stages])).toEqual([
      [3, ['AWSPENDING']],
      [2, ['AWSCURRENT']],
      [1, ['AWSPREVIOUS']],
    ]);
    expect((await audited(ws, id)).filter((entry) => entry.action !== 'secret.reveal')).toEqual([
      { action: 'secret.create', version: 1 },
      { action: 'secret.rotate', version: 2 },
      { action: 'secret.stage', version: 3 },
    ]);

    // Act 2: the label moves, as a rotation function's finishSecret does.
    await sm.send(
      new UpdateSecretVersionStageCommand({
        SecretId,
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: token(3),
        RemoveFromVersionId: token(2),
      }),
    );

    // Assess 2
    expect(await sm.send(new GetSecretValueCommand({ SecretId }))).toMatchObject({ SecretString: 'three', VersionId: token(3) });
    expect(await sm.send(new GetSecretValueCommand({ SecretId, VersionStage: 'AWSPREVIOUS' }))).toMatchObject({ SecretString: 'two' });
    expect(await restReveal(id)).toMatchObject({ version: 3, value: 'three' });
    expect(await bulkValue('DB_PASSWORD')).toMatchObject({ version: 3, value: 'three' });
    const versions = await sm.send(new ListSecretVersionIdsCommand({ SecretId }));
    expect(versions.Versions?.map((v) => [v.VersionId, v.VersionStages])).toEqual([
      [token(3), ['AWSCURRENT', 'AWSPENDING']],
      [token(2), ['AWSPREVIOUS']],
    ]);
    expect((await audited(ws, id)).filter((entry) => entry.action !== 'secret.reveal').at(-1)).toEqual({
      action: 'secret.rotate',
      version: 3,
    });

    // A new write takes the number after the highest, and AWSPREVIOUS follows AWSCURRENT.
    const four = await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'four' }));
    expect(four.VersionStages).toEqual(['AWSCURRENT']);
    expect(await restReveal(id)).toMatchObject({ version: 4, value: 'four' });
  });

  it("refuses moves that break AWS's rules, and changes nothing", async () => {
    const SecretId = 'labels/prod/API_KEY';
    await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'a', ClientRequestToken: token(11) }));
    await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'b', ClientRequestToken: token(12) }));
    const before = await sm.send(new DescribeSecretCommand({ SecretId }));
    const refusal = (input: { VersionStage: string; MoveToVersionId?: string; RemoveFromVersionId?: string }) =>
      sm.send(new UpdateSecretVersionStageCommand({ SecretId, ...input })).then(
        () => undefined,
        (error: { name: string }) => error.name,
      );

    expect(await refusal({ VersionStage: 'AWSCURRENT', MoveToVersionId: token(11) })).toBe('InvalidParameterException');
    expect(await refusal({ VersionStage: 'AWSCURRENT', RemoveFromVersionId: token(12) })).toBe('InvalidParameterException');
    expect(await refusal({ VersionStage: 'has space', MoveToVersionId: token(11) })).toBe('InvalidParameterException');
    expect(await refusal({ VersionStage: 'blue', MoveToVersionId: token(99) })).toBe('ResourceNotFoundException');
    expect(
      await sm.send(new PutSecretValueCommand({ SecretId, SecretString: 'c', VersionStages: ['x'.repeat(257)] })).then(
        () => undefined,
        (error: { name: string }) => error.name,
      ),
    ).toBe('InvalidParameterException');

    expect((await sm.send(new DescribeSecretCommand({ SecretId }))).VersionIdsToStages).toEqual(before.VersionIdsToStages);

    // A custom label goes on and comes off.
    await sm.send(new UpdateSecretVersionStageCommand({ SecretId, VersionStage: 'blue', MoveToVersionId: token(11) }));
    expect(await sm.send(new GetSecretValueCommand({ SecretId, VersionStage: 'blue' }))).toMatchObject({ SecretString: 'a' });
    await sm.send(new UpdateSecretVersionStageCommand({ SecretId, VersionStage: 'blue', RemoveFromVersionId: token(11) }));
    expect((await sm.send(new DescribeSecretCommand({ SecretId }))).VersionIdsToStages).toEqual(before.VersionIdsToStages);
  });

  it('loses neither a tag nor a version when tags and values are written at once (every head write is conditional on its revision)', async () => {
    // Prepare
    const SecretId = 'labels/prod/RACED';
    await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'v0', ClientRequestToken: token(20) }));
    const rounds = 4;
    // Act: each round a tag and a value at the same moment, on the same head item
    const outcomes = await Promise.allSettled(
      Array.from({ length: rounds }, (_, i) => [
        sm.send(new TagResourceCommand({ SecretId, Tags: [{ Key: `k${i}`, Value: `${i}` }] })),
        sm.send(new PutSecretValueCommand({ SecretId, SecretString: `v${i + 1}`, ClientRequestToken: token(21 + i) })),
      ]).flat(),
    );
    // Assess: every call succeeded or was refused whole; what succeeded is all there
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Error).name] : []));
    expect(refused.filter((name) => name !== 'InvalidRequestException')).toEqual([]);
    const tagged = outcomes.flatMap((outcome, i) => (i % 2 === 0 && outcome.status === 'fulfilled' ? [`k${i / 2}`] : []));
    const written = outcomes.flatMap((outcome, i) => (i % 2 === 1 && outcome.status === 'fulfilled' ? [token(21 + (i - 1) / 2)] : []));
    expect(tagged.length + written.length).toBeGreaterThan(0);
    const described = await sm.send(new DescribeSecretCommand({ SecretId }));
    expect((described.Tags ?? []).map((tag) => tag.Key).sort()).toEqual([...tagged].sort());
    const versions = (await sm.send(new ListSecretVersionIdsCommand({ SecretId, IncludeDeprecated: true }))).Versions ?? [];
    expect(versions.map((version) => version.VersionId).sort()).toEqual([token(20), ...written].sort());
    const current = versions.filter((version) => version.VersionStages?.includes('AWSCURRENT'));
    expect(current).toHaveLength(1);
    const value = await sm.send(new GetSecretValueCommand({ SecretId }));
    expect(value.VersionId).toBe(current[0]!.VersionId);
  });
});
