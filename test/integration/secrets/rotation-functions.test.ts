import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';
import { awsKey } from '../aws/support.ts';

/**
 * Rotation through a real rotation function (decisions.md v1.3, "Rotation"): a port of AWS's generic rotation
 * template (test/support/functions/generic-rotation.ts), registered with `npm run admin -- function add` and run by
 * the local stack in a child Node process, calling the service's AWS API with an aws_sigv4 key of its own. The four
 * steps in order; AWSCURRENT on the token's version and AWSPREVIOUS on the old one; a function that throws and one
 * that never finishes (the local stack's step timeout is 10 s in the tests) both fail with the current value kept; the next
 * rotation after a failure succeeds.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

const TEMPLATE = resolve('test/support/functions/generic-rotation.ts');
const logs = mkdtempSync(join(tmpdir(), 'rotation-steps-'));

async function audited(ws: Ws, target: string) {
  const page = await localStore().store.listAudit(ws.workspaceId, { limit: 100 }, { target });
  return page.items.reverse().filter((entry) => entry.action !== 'secret.reveal');
}

describe('rotation through a rotation function', () => {
  let ws: Ws;
  let envId: string;
  let credentials: Record<string, string>;
  let functionKeyActor: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'fn', environment: 'prod' })).environment.id;
    const key = await awsKey(ws);
    credentials = { AWS_ACCESS_KEY_ID: key.accessKeyId, AWS_SECRET_ACCESS_KEY: key.secretAccessKey };
    functionKeyActor = key.identityId;
  });

  /** Registers the template under a fresh name with these variables; answers its ARN and its steps' log file. */
  async function register(variables: Record<string, string> = {}) {
    const name = `generic-${randomUUID().slice(0, 8)}`;
    const stepsLog = join(logs, `${name}.log`);
    const env = { ...credentials, STEPS_LOG: stepsLog, ...variables };
    const added = await admin(
      'function',
      'add',
      '--name',
      name,
      '--handler',
      TEMPLATE,
      ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    );
    expect(added.arn).toBe(`arn:aws:lambda:us-east-1:000000000000:function:${name}`);
    return { arn: added.arn as string, steps: () => (existsSync(stepsLog) ? readFileSync(stepsLog, 'utf8').trim().split('\n') : []) };
  }

  async function secretWithRotation(key: string, arn: string) {
    const { id } = (await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value: 'original' } })).body
      .data as { id: string };
    await call('PUT', `/api/v1/secrets/${id}/rotation`, { token: ws.apiKey, body: { function: arn, schedule: 'rate(30 days)' } });
    return id;
  }

  const start = async (id: string) => {
    const started = await call('POST', `/api/v1/secrets/${id}/rotate`, { token: ws.apiKey });
    expect(started.status).toBe(202);
    return started.body.data.versionId as string;
  };
  const outcome = (id: string, token: string) =>
    waitFor(
      async () =>
        (await audited(ws, id)).find(
          (entry) =>
            (entry.action === 'secret.rotation_succeeded' || entry.action === 'secret.rotation_failed') &&
            entry.metadata.versionId === token,
        ),
      60_000,
      'the rotation to end',
    );
  const history = async (id: string) =>
    (
      (await call('GET', `/api/v1/secrets/${id}/versions`, { token: ws.apiKey })).body.data as {
        version: number;
        versionId: string;
        stages: string[];
      }[]
    ).map((item) => [item.versionId, item.stages]);
  const current = async (id: string) => (await call('POST', `/api/v1/secrets/${id}/reveal`, { token: ws.apiKey })).body.data;

  it("runs AWS's four steps in order and ends with AWSCURRENT on the token's version, AWSPREVIOUS on the old one", async () => {
    // Prepare
    const fn = await register();
    const id = await secretWithRotation('DB_PASSWORD', fn.arn);
    const before = (await history(id))[0]![0];

    // Act
    const token = await start(id);
    const ended = await outcome(id, token);

    // Assess
    expect(ended.action).toBe('secret.rotation_succeeded');
    expect(fn.steps()).toEqual(['createSecret', 'setSecret', 'testSecret', 'finishSecret'].map((step) => `${step} ${token}`));
    expect(await history(id)).toEqual([
      [token, ['AWSCURRENT']],
      [before, ['AWSPREVIOUS']],
    ]);
    const value = await current(id);
    expect(value.version).toBe(2);
    expect(value.value).not.toBe('original');
    // The function wrote the pending version and moved AWSCURRENT with its own key: a secret.rotate by it, whose event
    // is service.secret.rotate.
    const entries = (await audited(ws, id)).map((entry) => [entry.action, entry.actorSub]);
    expect(entries).toEqual(
      expect.arrayContaining([
        ['secret.stage', functionKeyActor],
        ['secret.rotate', functionKeyActor],
        ['secret.rotation_succeeded', 'system'],
      ]),
    );
    expect(JSON.stringify(await audited(ws, id))).not.toContain(value.value);
  });

  it('a function that throws in testSecret fails the rotation with the current value kept, and the next rotation succeeds', async () => {
    // Prepare: a webhook endpoint subscribed to failed rotations.
    const receiver = await startReceiver();
    await registerEndpoint(ws.apiKey, `${receiver.origin}/hooks`, ['service.secret.rotation_failed']);
    const failing = await register({ FAIL_STEP: 'testSecret' });
    const id = await secretWithRotation('API_TOKEN', failing.arn);

    // Act
    const token = await start(id);
    const ended = await outcome(id, token);

    // Assess
    expect(ended.action).toBe('secret.rotation_failed');
    expect(ended.metadata).toMatchObject({ step: 'testSecret', error: expect.stringContaining('testSecret failed on purpose') });
    expect(failing.steps()).toEqual([`createSecret ${token}`, `setSecret ${token}`, `testSecret ${token}`]);
    expect(await current(id)).toMatchObject({ version: 1, value: 'original' });
    // The version the function put keeps its value but no label: AWSPENDING is off.
    expect((await history(id)).map(([, stages]) => stages)).toEqual([[], ['AWSCURRENT']]);
    const rotation = (await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data.rotation;
    expect(rotation.lastRotatedAt).toBeNull();
    const delivered = await waitFor(
      async () => receiver.requests.find((request) => request.body.includes('rotation_failed')),
      30_000,
      'the event',
    );
    expect(JSON.parse(delivered.body)).toMatchObject({
      type: 'service.secret.rotation_failed',
      data: {
        secretId: id,
        key: 'API_TOKEN',
        environmentId: envId,
        step: 'testSecret',
        error: expect.stringContaining('failed on purpose'),
      },
    });
    await receiver.close();

    // Act again: the same secret with a function that works.
    const working = await register();
    await call('PUT', `/api/v1/secrets/${id}/rotation`, { token: ws.apiKey, body: { function: working.arn, schedule: 'rate(30 days)' } });
    const next = await start(id);
    expect((await outcome(id, next)).action).toBe('secret.rotation_succeeded');
    expect((await current(id)).version).toBe(3);
  });

  it('a function that never finishes a step fails at that step when the step times out', async () => {
    const hanging = await register({ HANG_STEP: 'setSecret' });
    const id = await secretWithRotation('SIGNING_KEY', hanging.arn);
    const token = await start(id);
    const ended = await outcome(id, token);
    expect(ended.action).toBe('secret.rotation_failed');
    expect(ended.metadata).toMatchObject({ step: 'setSecret', error: expect.stringContaining('timed out') });
    expect(await current(id)).toMatchObject({ version: 1, value: 'original' });
  }, 90_000);
});
