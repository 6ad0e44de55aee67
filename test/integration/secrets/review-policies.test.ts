import { PutSecretValueCommand, TagResourceCommand, UpdateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { admin, call, localStore, newWorkspace, userToken } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { waitFor } from '../../support/webhooks.ts';
import { awsKey, client } from '../aws/support.ts';

/**
 * Review policies (decisions.md v1.4, "Change requests"), over the local stack: an admin sets, reads and removes an
 * environment's policy, nobody else may; with a policy, a REST PUT, a rollback, a delete and an AWS PutSecretValue by
 * a credential not in `bypass` are refused and change nothing, and a bypass key's writes land.
 */

let ws: Awaited<ReturnType<typeof newWorkspace>>;
let project: { id: string; slug: string };
let environment: { id: string; slug: string };
/** A machine token of an access key with the default rules (it may write every secret), and its id. */
let machine: { id: string; token: string };

const policyPath = (envId: string) => `/api/v1/environments/${envId}/review-policy`;
const putPolicy = (envId: string, body: unknown, token = ws.apiKey) => call('PUT', policyPath(envId), { token, body });
const put = (token: string, key: string, value: string) =>
  call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token, body: { key, value } });

beforeAll(async () => {
  ws = await newWorkspace();
  ({ project, environment } = await newEnvironment(ws.apiKey, { project: 'reviewed', environment: 'prod' }));
  const made = await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'writer' } });
  expect(made.status).toBe(201);
  machine = { id: made.body.data.id, token: made.body.data.token };
});

describe('review policies: set, read, remove', () => {
  it('an admin sets, reads and removes a policy; each change audited; GET answers null without one', async () => {
    // Prepare
    const env = (await newEnvironment(ws.apiKey, { project: 'policies', environment: 'prod' })).environment;
    expect((await call('GET', policyPath(env.id), { token: ws.apiKey })).body.data).toBeNull();
    // Act
    const set = await putPolicy(env.id, { requiredApprovals: 2, bypass: [machine.id] });
    const read = await call('GET', policyPath(env.id), { token: ws.apiKey });
    const removed = await call('DELETE', policyPath(env.id), { token: ws.apiKey });
    // Assess
    const policy = { environmentId: env.id, requiredApprovals: 2, bypass: [machine.id] };
    expect([set.status, set.body.data]).toEqual([200, policy]);
    expect(read.body.data).toEqual(policy);
    expect([removed.status, removed.body.data]).toEqual([200, { id: env.id, deleted: true }]);
    expect((await call('GET', policyPath(env.id), { token: ws.apiKey })).body.data).toBeNull();
    const again = await call('DELETE', policyPath(env.id), { token: ws.apiKey });
    expect([again.status, again.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const audit = (await localStore().store.listAudit(ws.workspaceId, { limit: 50 })).items.filter((e) => e.target === env.id);
    expect(audit.map((e) => e.action).sort()).toEqual(['environment.create', 'review_policy.delete', 'review_policy.set']);
    expect(audit.find((e) => e.action === 'review_policy.set')?.metadata).toMatchObject({ requiredApprovals: 2, bypass: [machine.id] });
  });

  it('anyone but an admin is FORBIDDEN: a machine token, a developer; an unknown environment is NOT_FOUND', async () => {
    const developer = await userToken({ sub: newId('user'), workspace_id: ws.workspaceId, roles: ['developer'] });
    for (const token of [machine.token, developer]) {
      expect((await putPolicy(environment.id, { requiredApprovals: 1 }, token)).body.error.code).toBe('FORBIDDEN');
      expect((await call('GET', policyPath(environment.id), { token })).body.error.code).toBe('FORBIDDEN');
      expect((await call('DELETE', policyPath(environment.id), { token })).body.error.code).toBe('FORBIDDEN');
    }
    expect((await putPolicy(newId('environment'), { requiredApprovals: 1 })).status).toBe(404);
    expect((await call('GET', policyPath(environment.id), { token: ws.apiKey })).body.data).toBeNull();
  });

  it('validates requiredApprovals (1 to 5) and bypass (at most 20 distinct key_ or ak_ ids), naming the field and rule', async () => {
    const env = (await newEnvironment(ws.apiKey, { project: 'limits', environment: 'prod' })).environment;
    const refused = async (body: unknown, field: RegExp) => {
      const answer = await putPolicy(env.id, body);
      expect([answer.status, answer.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(answer.body.error.message).toMatch(field);
    };
    await refused({ requiredApprovals: 0 }, /^requiredApprovals: must be at least 1/);
    await refused({ requiredApprovals: 6 }, /^requiredApprovals: must be at most 5/);
    await refused({ requiredApprovals: 1.5 }, /requiredApprovals/);
    expect((await putPolicy(env.id, { requiredApprovals: 1 })).status).toBe(200);
    expect((await putPolicy(env.id, { requiredApprovals: 5 })).status).toBe(200);
    // 20 live keys of the workspace (its API key and 19 access keys); one more id is past the limit.
    const made = await Promise.all(
      Array.from({ length: 19 }, (_, i) => call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: `bypass-${i}` } })),
    );
    const ids = [ws.apiKeyId, ...made.map((answer) => answer.body.data.id as string), newId('accessKey')];
    expect((await putPolicy(env.id, { requiredApprovals: 1, bypass: ids.slice(0, 20) })).status).toBe(200);
    await refused({ requiredApprovals: 1, bypass: ids }, /bypass.*20/);
    // Each id must be a live key of this workspace, checked when the policy lands: unknown, revoked, another's.
    const revoked = made[18]!.body.data.id as string;
    expect((await call('POST', `/api/v1/access-keys/${revoked}/revoke`, { token: ws.apiKey })).status).toBe(200);
    const other = await newWorkspace();
    for (const [bypass, named] of [
      [[machine.id, newId('accessKey')], 1],
      [[newId('apiKey')], 0],
      [[machine.id, revoked], 1],
      [[other.apiKeyId], 0],
    ] as const)
      await refused(
        { requiredApprovals: 1, bypass },
        new RegExp(`^bypass\\[${named}\\]: ${bypass[named]} is no live key of this workspace`),
      );
    expect((await putPolicy(env.id, { requiredApprovals: 1 })).status).toBe(200);
    await refused({ requiredApprovals: 1, bypass: [machine.id, machine.id] }, /bypass.*must not repeat an id/);
    await refused({ requiredApprovals: 1, bypass: [newId('user')] }, /bypass.*must be a key_ or ak_ id/);
    await refused({ requiredApprovals: 1, other: true }, /other/);
  });
});

describe('with a policy, writes by credentials not in bypass are refused and change nothing', () => {
  let secretId: string;
  let signer: Awaited<ReturnType<typeof awsKey>>;
  let bypassSigner: Awaited<ReturnType<typeof awsKey>>;

  beforeAll(async () => {
    secretId = (await put(ws.apiKey, 'DB_PASSWORD', 'one')).body.data.id;
    expect((await put(ws.apiKey, 'DB_PASSWORD', 'two')).body.data.version).toBe(2);
    signer = await awsKey(ws);
    bypassSigner = await awsKey(ws);
    const set = await putPolicy(environment.id, { requiredApprovals: 1, bypass: [machine.id, bypassSigner.id] });
    expect(set.status).toBe(200);
  });

  /** What a refused write must leave as it was: the secret, its versions, its audit entries. */
  const state = async () => ({
    secret: (await call('GET', `/api/v1/secrets/${secretId}`, { token: ws.apiKey })).body.data,
    versions: (await call('GET', `/api/v1/secrets/${secretId}/versions`, { token: ws.apiKey })).body.data,
    audit: (await localStore().store.listAudit(ws.workspaceId, { limit: 100 })).items.filter((e) => e.target === secretId).length,
  });

  it('REST PUT, rollback and delete by the API key (not in bypass): 409 REVIEW_REQUIRED naming the policy, nothing changed', async () => {
    // Prepare
    const before = await state();
    // Act
    const answers = [
      await put(ws.apiKey, 'DB_PASSWORD', 'three'),
      await put(ws.apiKey, 'NEW_KEY', 'x'),
      await call('POST', `/api/v1/secrets/${secretId}/rollback`, { token: ws.apiKey, body: { version: 1 } }),
      await call('DELETE', `/api/v1/secrets/${secretId}`, { token: ws.apiKey }),
    ];
    // Assess
    for (const answer of answers) {
      expect([answer.status, answer.body.error.code]).toEqual([409, 'REVIEW_REQUIRED']);
      expect(answer.body.error.message).toMatch(new RegExp(`^environment ${environment.id} has a review policy`));
    }
    expect(await state()).toEqual(before);
    expect((await call('GET', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey })).body.data).toHaveLength(1);
  });

  it('AWS PutSecretValue: AccessDeniedException naming the review policy, nothing changed; tags stay writable', async () => {
    const before = await state();
    const sm = client(signer);
    const name = `${project.slug}/${environment.slug}/DB_PASSWORD`;
    const refused = await sm.send(new PutSecretValueCommand({ SecretId: name, SecretString: 'three' })).catch((error: Error) => error);
    expect(refused).toMatchObject({ name: 'AccessDeniedException', message: expect.stringMatching(/review policy/) });
    expect((await state()).versions).toEqual(before.versions);
    // UpdateSecret with a description and a value: refused whole, the description left as it was.
    const update = new UpdateSecretCommand({ SecretId: name, Description: 'changed', SecretString: 'three' });
    expect(await sm.send(update).catch((error: Error) => error.name)).toBe('AccessDeniedException');
    expect(await state()).toEqual(before);
    await sm.send(new TagResourceCommand({ SecretId: name, Tags: [{ Key: 'team', Value: 'payments' }] }));
    expect((await state()).secret.tags).toEqual({ team: 'payments' });
  });

  it('a bypass key writes: its machine token over REST, its key pair over the AWS API', async () => {
    const written = await put(machine.token, 'DB_PASSWORD', 'three');
    expect([written.status, written.body.data.version]).toEqual([200, 3]);
    const name = `${project.slug}/${environment.slug}/DB_PASSWORD`;
    const put4 = await client(bypassSigner).send(new PutSecretValueCommand({ SecretId: name, SecretString: 'four' }));
    expect(put4.VersionId).toBeDefined();
    const rolled = await call('POST', `/api/v1/secrets/${secretId}/rollback`, { token: machine.token, body: { version: 1 } });
    expect([rolled.status, rolled.body.data.version]).toEqual([200, 5]);
  });

  it('once the policy is removed, the API key writes again', async () => {
    expect((await call('DELETE', policyPath(environment.id), { token: ws.apiKey })).status).toBe(200);
    expect((await put(ws.apiKey, 'DB_PASSWORD', 'six')).body.data.version).toBe(6);
  });
});

describe('with a policy, a rotation still runs', () => {
  it('a rotation function whose key is not in bypass completes the rotation a bypass key started; others may not start one', async () => {
    // Prepare: the generic rotation template (test/support/functions/) signing with a key of its own, not in bypass.
    const env = (await newEnvironment(ws.apiKey, { project: 'rotated', environment: 'prod' })).environment;
    const fnKey = await awsKey(ws);
    const name = `generic-${randomUUID().slice(0, 8)}`;
    const credentials = ['--env', `AWS_ACCESS_KEY_ID=${fnKey.accessKeyId}`, '--env', `AWS_SECRET_ACCESS_KEY=${fnKey.secretAccessKey}`];
    const handler = resolve('test/support/functions/generic-rotation.ts');
    const { arn } = await admin('function', 'add', '--name', name, '--handler', handler, ...credentials);
    const secret = (await call('PUT', `/api/v1/environments/${env.id}/secrets`, { token: ws.apiKey, body: { key: 'K', value: 'v1' } })).body
      .data as { id: string };
    const rotationPath = `/api/v1/secrets/${secret.id}/rotation`;
    expect((await call('PUT', rotationPath, { token: ws.apiKey, body: { function: arn, schedule: 'rate(30 days)' } })).status).toBe(200);
    expect((await putPolicy(env.id, { requiredApprovals: 1, bypass: [ws.apiKeyId] })).status).toBe(200);
    // Act
    const refused = await call('POST', `/api/v1/secrets/${secret.id}/rotate`, { token: machine.token });
    const started = await call('POST', `/api/v1/secrets/${secret.id}/rotate`, { token: ws.apiKey });
    const token = started.body.data.versionId as string;
    const ended = await waitFor(
      async () =>
        (await localStore().store.listAudit(ws.workspaceId, { limit: 100 }, { target: secret.id })).items.find(
          (e) => ['secret.rotation_succeeded', 'secret.rotation_failed'].includes(e.action) && e.metadata.versionId === token,
        ),
      60_000,
      'the rotation to end',
    );
    // Assess
    expect([refused.status, refused.body.error.code]).toEqual([409, 'REVIEW_REQUIRED']);
    expect(ended.action).toBe('secret.rotation_succeeded');
    const versions = (await call('GET', `/api/v1/secrets/${secret.id}/versions`, { token: ws.apiKey })).body.data;
    expect(versions[0]).toMatchObject({ versionId: token, stages: ['AWSCURRENT'] });
  });
});
