import {
  CancelRotateSecretCommand,
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  RotateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { makeSqsClient } from '../../../shared/platform/clients/sqs.ts';
import { LOCAL_ROTATION_QUEUE } from '../../../bin/local/rotation.ts';
import { randomUUID } from 'node:crypto';
import { admin, call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { waitFor } from '../../support/webhooks.ts';
import { awsKey, client } from '../aws/support.ts';

/**
 * Rotation without a function, through the local stack (decisions.md v1.3, "Rotation"): configured on REST and the
 * AWS API, started now, run by the runner from the rotation queue; the lease; refusals; a failure.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

async function audited(ws: Ws, target: string) {
  const page = await localStore().store.listAudit(ws.workspaceId, { limit: 100 }, { target });
  return page.items.reverse().filter((entry) => entry.action !== 'secret.reveal');
}

describe('rotation without a function', () => {
  let ws: Ws;
  let envId: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'rot', environment: 'prod' })).environment.id;
  });

  const write = async (key: string, value: string) =>
    (await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } })).body.data as { id: string };
  const history = async (id: string) =>
    (await call('GET', `/api/v1/secrets/${id}/versions`, { token: ws.apiKey })).body.data as {
      version: number;
      versionId: string;
      stages: string[];
    }[];

  it('REST: configure, rotate now, and the new value obeys the generator, is AWSCURRENT under the token, and is audited', async () => {
    // Prepare
    const { id } = await write('DB_PASSWORD', 'before');
    await write('DB_PASSWORD', 'before-2');

    // Act
    const configured = await call('PUT', `/api/v1/secrets/${id}/rotation`, {
      token: ws.apiKey,
      body: { function: null, schedule: 'rate(30 days)', duration: '2h', generator: { length: 20, excludePunctuation: true } },
    });
    const started = await call('POST', `/api/v1/secrets/${id}/rotate`, { token: ws.apiKey });

    // Assess
    expect(configured.status).toBe(200);
    expect(configured.body.data).toMatchObject({
      enabled: true,
      function: null,
      schedule: 'rate(30 days)',
      duration: '2h',
      lastRotatedAt: null,
    });
    expect(Date.parse(configured.body.data.nextRotationAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(started.status).toBe(202);
    const token = started.body.data.versionId as string;
    // The rotation has ended once lastRotatedAt is set (after its last change of the head).
    const secret = await waitFor(
      async () => {
        const read = (await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data;
        return read.rotation?.lastRotatedAt ? read : undefined;
      },
      20_000,
      'lastRotatedAt',
    );
    const after = await history(id);
    expect(after[0]?.versionId).toBe(token);
    expect(after.map((item) => [item.version, item.stages])).toEqual([
      [3, ['AWSCURRENT']],
      [2, ['AWSPREVIOUS']],
      [1, []],
    ]);
    const revealed = (await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey })).body.data;
    expect(revealed.version).toBe(3);
    expect(revealed.value).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(secret.rotation).toMatchObject({ enabled: true, function: null });
    expect(Date.parse(secret.rotation.nextRotationAt) - Date.parse(secret.rotation.lastRotatedAt)).toBe(30 * 86_400_000);
    const actions = (await audited(ws, id)).map((entry) => [entry.action, entry.actorSub]);
    expect(actions.slice(2)).toEqual([
      ['secret.rotation_configure', expect.stringMatching(/^key_/)],
      ['secret.rotation_start', expect.stringMatching(/^key_/)],
      ['secret.rotate', 'system'],
      ['secret.rotation_succeeded', 'system'],
    ]);
    // No value anywhere in the audit entries.
    expect(JSON.stringify(await audited(ws, id))).not.toContain(revealed.value);
  });

  it('refuses a start without rotation configured (CONFLICT), bad schedules (VALIDATION_ERROR), and a key without write (FORBIDDEN)', async () => {
    const { id } = await write('API_KEY', 'v');
    expect((await call('POST', `/api/v1/secrets/${id}/rotate`, { token: ws.apiKey })).body.error.code).toBe('CONFLICT');
    for (const schedule of ['rate(0 days)', 'rate(1001 days)', 'rate(2 hours)', 'every day', 'rate(1 days)'])
      expect(
        (await call('PUT', `/api/v1/secrets/${id}/rotation`, { token: ws.apiKey, body: { function: null, schedule } })).body.error,
        schedule,
      ).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('schedule') });
    const bad = await call('PUT', `/api/v1/secrets/${id}/rotation`, {
      token: ws.apiKey,
      body: { function: null, schedule: 'rate(7 days)', duration: '25h' },
    });
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('duration') });
    expect((await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data.rotation).toBeNull();

    const reader = (
      await call('POST', '/api/v1/access-keys', {
        token: ws.apiKey,
        body: { name: 'reader', permissions: [{ actions: ['read', 'reveal'] }] },
      })
    ).body.data.token as string;
    const refusals = [
      await call('PUT', `/api/v1/secrets/${id}/rotation`, { token: reader, body: { function: null, schedule: 'rate(7 days)' } }),
      await call('DELETE', `/api/v1/secrets/${id}/rotation`, { token: reader }),
      await call('POST', `/api/v1/secrets/${id}/rotate`, { token: reader }),
    ];
    expect(refusals.map((answer) => answer.body.error?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN']);
  });

  it('takes the lease once: two starts at the same moment make one rotation', async () => {
    const { id } = await write('LEASED', 'v');
    await call('PUT', `/api/v1/secrets/${id}/rotation`, { token: ws.apiKey, body: { function: null, schedule: 'rate(7 days)' } });
    const { store } = localStore();
    const now = Date.now();
    const lease = (token: string) => ({ token, version: 2, step: 'generate', until: now + 60_000, startedBy: 'test' });
    const outcomes = await Promise.allSettled([
      store.takeRotationLease(ws.workspaceId, id, lease(randomUUID()), now),
      store.takeRotationLease(ws.workspaceId, id, lease(randomUUID()), now),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    // While it holds, a start through the API is CONFLICT.
    expect((await call('POST', `/api/v1/secrets/${id}/rotate`, { token: ws.apiKey })).body.error.code).toBe('CONFLICT');
  });

  it('AWS API: RotateSecret without a function rotates at once under its token; DescribeSecret shows the rules; Cancel turns it off', async () => {
    const sm = client(await awsKey(ws));
    const SecretId = 'rot/prod/AWS_ROTATED';
    const created = await sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: 'first' }));
    const token = randomUUID();
    const rotated = await sm.send(
      new RotateSecretCommand({ SecretId, ClientRequestToken: token, RotationRules: { AutomaticallyAfterDays: 7 } }),
    );
    expect(rotated).toMatchObject({ ARN: created.ARN, VersionId: token });
    const value = await waitFor(
      async () => {
        const current = await sm.send(new GetSecretValueCommand({ SecretId }));
        return current.VersionId === token ? current : undefined;
      },
      20_000,
      'the rotated value',
    );
    expect(value.SecretString).toHaveLength(32);
    expect(value.SecretString).not.toMatch(/["'`\\ ]/);
    const described = await waitFor(
      async () => {
        const d = await sm.send(new DescribeSecretCommand({ SecretId }));
        return d.LastRotatedDate ? d : undefined;
      },
      10_000,
      'LastRotatedDate',
    );
    expect(described).toMatchObject({ RotationEnabled: true, RotationRules: { AutomaticallyAfterDays: 7 } });
    expect(described.RotationLambdaARN).toBeUndefined();
    expect(described.NextRotationDate!.getTime() - described.LastRotatedDate!.getTime()).toBe(7 * 86_400_000);
    expect(described.VersionIdsToStages).toEqual({ [token]: ['AWSCURRENT'], [created.VersionId!]: ['AWSPREVIOUS'] });

    await sm.send(new CancelRotateSecretCommand({ SecretId }));
    const cancelled = await sm.send(new DescribeSecretCommand({ SecretId }));
    expect(cancelled.RotationEnabled).toBe(false);
    expect(cancelled.NextRotationDate).toBeUndefined();
    await expect(sm.send(new RotateSecretCommand({ SecretId, RotateImmediately: true }))).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });

  it('refuses a function the stack may not invoke (FORBIDDEN, AccessDeniedException), and fails a rotation whose function was withdrawn', async () => {
    const { id } = await write('UNINVOKABLE', 'stays');
    const unknown = 'arn:aws:lambda:us-east-1:000000000000:function:not-registered';
    const refused = await call('PUT', `/api/v1/secrets/${id}/rotation`, {
      token: ws.apiKey,
      body: { function: unknown, schedule: 'rate(7 days)' },
    });
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('rotationFunctionArns') });
    await expect(
      client(await awsKey(ws)).send(
        new RotateSecretCommand({
          SecretId: 'rot/prod/UNINVOKABLE',
          RotationLambdaARN: unknown,
          RotationRules: { AutomaticallyAfterDays: 7 },
        }),
      ),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
    // A registered function, configured, then withdrawn from the stand-ins before the rotation runs.
    const name = `withdrawn-${randomUUID().slice(0, 8)}`;
    await admin('function', 'add', '--name', name, '--handler', resolve('test/support/functions/succeeds.ts'));
    const arn = `arn:aws:lambda:us-east-1:000000000000:function:${name}`;
    expect(
      (await call('PUT', `/api/v1/secrets/${id}/rotation`, { token: ws.apiKey, body: { function: arn, schedule: 'rate(7 days)' } })).status,
    ).toBe(200);
    const registry = join(inject('localDir'), 'functions.json');
    const functions = JSON.parse(readFileSync(registry, 'utf8')) as { functions: Record<string, unknown> };
    delete functions.functions[name];
    writeFileSync(registry, JSON.stringify(functions));
    const token = (await call('POST', `/api/v1/secrets/${id}/rotate`, { token: ws.apiKey })).body.data.versionId as string;
    const failed = await waitFor(
      async () => (await audited(ws, id)).find((entry) => entry.action === 'secret.rotation_failed'),
      20_000,
      'the failure',
    );
    expect(failed.metadata).toMatchObject({
      step: 'createSecret',
      versionId: token,
      error: expect.stringContaining('AccessDeniedException'),
    });
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey })).body.data).toMatchObject({
      version: 1,
      value: 'stays',
    });
    expect((await history(id)).map((item) => item.stages)).toEqual([['AWSCURRENT']]);
    // The lease is free again: the next start is accepted.
    await waitFor(
      async () => (await call('POST', `/api/v1/secrets/${id}/rotate`, { token: ws.apiKey })).status === 202,
      10_000,
      'a new start',
    );
  });

  it("keeps one recurring schedule per configured secret (gone when rotation is off), and a schedule's start rotates", async () => {
    // Prepare
    const { id } = await write('SCHEDULED', 'v');
    const schedules = () => {
      const file = join(inject('localDir'), 'rotation-schedules.json');
      return existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as { schedules: Record<string, { expression: string; messageBody: string }> }).schedules
        : {};
    };

    // Act 1
    await call('PUT', `/api/v1/secrets/${id}/rotation`, {
      token: ws.apiKey,
      body: { function: null, schedule: 'cron(0 4 ? * MON *)', duration: '3h' },
    });

    // Assess 1: the runner makes the schedule match the configuration (the API functions carry no Scheduler client).
    await waitFor(async () => schedules()[`rotate-${id}`], 20_000, 'the schedule');
    expect(schedules()[`rotate-${id}`]).toMatchObject({ expression: 'cron(0 4 ? * MON *)' });
    expect(JSON.parse(schedules()[`rotate-${id}`]!.messageBody)).toEqual({ workspaceId: ws.workspaceId, secretId: id, step: 'start' });
    const next = (await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data.rotation.nextRotationAt as string;
    expect(new Date(next).getUTCDay()).toBe(1);
    expect(next).toMatch(/T04:00:00\.000Z$/);

    // Act 2: what the schedule sends when it fires.
    const { sqsEndpoint } = inject('stack');
    const sqs = makeSqsClient({ endpoint: sqsEndpoint });
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: LOCAL_ROTATION_QUEUE }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: schedules()[`rotate-${id}`]!.messageBody }));

    // Assess 2
    const rotated = await waitFor(
      async () => (await audited(ws, id)).find((entry) => entry.action === 'secret.rotation_succeeded'),
      20_000,
      'the scheduled rotation',
    );
    expect(rotated.actorSub).toBe('system');
    expect((await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey })).body.data.version).toBe(2);

    // Act 3
    await call('DELETE', `/api/v1/secrets/${id}/rotation`, { token: ws.apiKey });

    // Assess 3
    await waitFor(async () => !schedules()[`rotate-${id}`], 20_000, 'the schedule to go');
    sqs.destroy();
  });
});
