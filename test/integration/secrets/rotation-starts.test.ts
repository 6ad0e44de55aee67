import { CreateSecretCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_ROTATION_QUEUE } from '../../../bin/local/rotation.ts';
import { makeSqsClient } from '../../../shared/platform/clients/sqs.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { waitFor } from '../../support/webhooks.ts';
import { awsKey, client } from '../aws/support.ts';

/**
 * Rotation hardening of v1.4 through the local stack (decisions.md, "Hardening v1.4"): a cron schedule that could
 * start two rotations less than 4 hours apart is refused on REST and the AWS API; a rotation started now is audited
 * `secret.rotation_start` by its caller, and its outcome names the starter in `startedBy` (`schedule` for a scheduled
 * one).
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

async function audited(ws: Ws, target: string) {
  const page = await localStore().store.listAudit(ws.workspaceId, { limit: 100 }, { target });
  return page.items.reverse().filter((entry) => entry.action !== 'secret.reveal');
}

const outcomeOf = (ws: Ws, id: string) =>
  waitFor(
    async () =>
      (await audited(ws, id)).find((entry) => entry.action === 'secret.rotation_succeeded' || entry.action === 'secret.rotation_failed'),
    20_000,
    'the rotation to end',
  );

describe('rotation starts and schedules', () => {
  let ws: Ws;
  let envId: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'starts', environment: 'prod' })).environment.id;
  });

  const write = async (key: string) =>
    (await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value: 'before' } })).body.data as {
      id: string;
    };
  const configure = (id: string, schedule: string) =>
    call('PUT', `/api/v1/secrets/${id}/rotation`, { token: ws.apiKey, body: { function: null, schedule } });

  it('REST: a cron schedule whose fires come closer than 4 hours is VALIDATION_ERROR naming schedule; every 4 hours is taken', async () => {
    // Prepare
    const { id } = await write('CRON_GAP');
    // Act
    const everyThree = await configure(id, 'cron(0 0/3 * * ? *)');
    const acrossMidnight = await configure(id, 'cron(0 0,22 * * ? *)');
    const everyFour = await configure(id, 'cron(0 0/4 * * ? *)');
    // Assess
    for (const refused of [everyThree, acrossMidnight])
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^schedule: .*4 hours/) });
    expect(everyFour.status).toBe(200);
    expect(everyFour.body.data.schedule).toBe('cron(0 0/4 * * ? *)');
  });

  it('AWS API: RotateSecret with such a ScheduleExpression is InvalidParameterException and configures nothing', async () => {
    // Prepare
    const sm = client(await awsKey(ws));
    const SecretId = 'starts/prod/AWS_CRON_GAP';
    await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'v' }));
    // Act
    const refused = sm.send(new RotateSecretCommand({ SecretId, RotationRules: { ScheduleExpression: 'cron(* * * * ? *)' } }));
    // Assess
    await expect(refused).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('4 hours') });
  });

  it('REST: rotate-now is audited secret.rotation_start by the caller, and the outcome carries startedBy', async () => {
    // Prepare
    const { id } = await write('REST_STARTED');
    expect((await configure(id, 'rate(30 days)')).status).toBe(200);
    // Act
    const started = await call('POST', `/api/v1/secrets/${id}/rotate`, { token: ws.apiKey });
    // Assess
    expect(started.status).toBe(202);
    const token = started.body.data.versionId as string;
    const outcome = await outcomeOf(ws, id);
    const start = (await audited(ws, id)).find((entry) => entry.action === 'secret.rotation_start');
    expect(start).toMatchObject({ actorSub: ws.apiKeyId, metadata: { key: 'REST_STARTED', versionId: token, credentialKind: 'api_key' } });
    expect(outcome).toMatchObject({ action: 'secret.rotation_succeeded', metadata: { versionId: token, startedBy: ws.apiKeyId } });
  });

  it('AWS API: RotateSecret that rotates now is audited by its caller, and the outcome carries its identity id', async () => {
    // Prepare
    const key = await awsKey(ws);
    const sm = client(key);
    const SecretId = 'starts/prod/AWS_STARTED';
    const created = await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'v' }));
    const listed = await call('GET', `/api/v1/environments/${envId}/secrets?limit=200`, { token: ws.apiKey });
    const secretId = (listed.body.data as { id: string; key: string }[]).find((secret) => secret.key === 'AWS_STARTED')!.id;
    // Act
    const rotated = await sm.send(
      new RotateSecretCommand({ SecretId, ClientRequestToken: randomUUID(), RotationRules: { AutomaticallyAfterDays: 7 } }),
    );
    // Assess
    expect(rotated.ARN).toBe(created.ARN);
    const outcome = await outcomeOf(ws, secretId);
    const start = (await audited(ws, secretId)).find((entry) => entry.action === 'secret.rotation_start');
    expect(start).toMatchObject({ actorSub: key.identityId, metadata: { versionId: rotated.VersionId, interface: 'aws' } });
    expect(outcome.metadata).toMatchObject({ versionId: rotated.VersionId, startedBy: key.identityId });
  });

  it("a schedule's start is no secret.rotation_start, and its outcome says startedBy: schedule", async () => {
    // Prepare
    const { id } = await write('SCHEDULE_STARTED');
    expect((await configure(id, 'rate(30 days)')).status).toBe(200);
    const sqs = makeSqsClient({ endpoint: inject('stack').sqsEndpoint });
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: LOCAL_ROTATION_QUEUE }));
    // Act: what the secret's schedule sends when it fires.
    await sqs.send(
      new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ workspaceId: ws.workspaceId, secretId: id, step: 'start' }) }),
    );
    // Assess
    const outcome = await outcomeOf(ws, id);
    expect(outcome).toMatchObject({ action: 'secret.rotation_succeeded', actorSub: 'system', metadata: { startedBy: 'schedule' } });
    expect((await audited(ws, id)).map((entry) => entry.action)).not.toContain('secret.rotation_start');
    sqs.destroy();
  });
});
