import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { CreateSecretCommand, GetSecretValueCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { derivedVersionId } from '../../../shared/secrets/index.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client, awsClientEnvironment } from './support.ts';

/**
 * A repeated `ClientRequestToken` is no value oracle (decisions.md v1.4, Hardening): a key with `write` but no
 * `reveal` learns nothing of a stored value by repeating another writer's VersionId with a guess; each repeat is
 * audited `secret.write_repeated` and spends the caller's reveal limit; its own retries still answer its version.
 * And a VersionId derived for a REST-written version is never claimed by another value.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

const token = (n: number) => `${String(n).padStart(8, '0')}-2222-4222-8222-222222222222`;

/** The id of the secret `key` of the environment, as REST lists it. */
async function idOf(ws: Ws, envId: string, key: string) {
  const listed = await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey });
  return (listed.body.data as { id: string; key: string }[]).find((secret) => secret.key === key)!.id;
}

/** The workspace's `secret.write_repeated` entries on one secret, oldest first. */
async function repeats(ws: Ws, target: string) {
  const page = await localStore().store.listAudit(ws.workspaceId, { limit: 100 }, { target, action: 'secret.write_repeated' });
  return page.items.reverse();
}

describe('repeated ClientRequestTokens through the AWS API', () => {
  let ws: Ws;
  let envId: string;
  let owner: Awaited<ReturnType<typeof awsKey>>;
  let writer: Awaited<ReturnType<typeof awsKey>>;
  beforeAll(async () => {
    ws = await newWorkspace();
    envId = (await newEnvironment(ws.apiKey, { project: 'vault', environment: 'prod' })).environment.id;
    owner = await awsKey(ws);
    writer = await awsKey(ws, { permissions: [{ projects: ['vault'], actions: ['write'] }] });
  });

  it("a write-only key repeating another writer's VersionId: ResourceExists for the right and a wrong guess, each audited matched null", async () => {
    const created = await client(owner).send(
      new CreateSecretCommand({ Name: 'vault/prod/PIN', SecretString: '4711', ClientRequestToken: token(1) }),
    );
    const sm = client(writer);
    const guess = (value: string) =>
      sm.send(new PutSecretValueCommand({ SecretId: created.ARN, SecretString: value, ClientRequestToken: token(1) }));
    const right = (await guess('4711').catch((error: Error) => error)) as Error;
    const wrong = (await guess('0000').catch((error: Error) => error)) as Error;
    expect([right.name, wrong.name]).toEqual(['ResourceExistsException', 'ResourceExistsException']);
    expect(right.message).toBe(wrong.message);
    expect(right.message).not.toContain('4711');
    const secretId = await idOf(ws, envId, 'PIN');
    const entries = await repeats(ws, secretId);
    expect(entries.map((entry) => [entry.actorSub, entry.metadata.matched, entry.metadata.interface])).toEqual([
      [writer.identityId, null, 'aws'],
      [writer.identityId, null, 'aws'],
    ]);
    // No version was made by either.
    expect((await client(owner).send(new GetSecretValueCommand({ SecretId: created.ARN }))).VersionId).toBe(token(1));
  });

  it("the same key's own retry of its own write (same token, same value) answers its version; the owner's compare still works", async () => {
    const sm = client(writer);
    const input = { Name: 'vault/prod/OWN', SecretString: 'mine', ClientRequestToken: token(2) };
    const first = await sm.send(new CreateSecretCommand(input));
    expect(await sm.send(new CreateSecretCommand(input))).toMatchObject({ ARN: first.ARN, VersionId: token(2) });
    const put = { SecretId: first.ARN, SecretString: 'mine too', ClientRequestToken: token(3) };
    await sm.send(new PutSecretValueCommand(put));
    expect(await sm.send(new PutSecretValueCommand(put))).toMatchObject({ VersionId: token(3) });
    // A key that may reveal compares: another value is ResourceExists, matched false.
    await expect(client(owner).send(new PutSecretValueCommand({ ...put, SecretString: 'other' }))).rejects.toMatchObject({
      name: 'ResourceExistsException',
    });
    const secretId = await idOf(ws, envId, 'OWN');
    expect((await repeats(ws, secretId)).map((entry) => entry.metadata.matched)).toEqual([true, true, false]);
  });

  it('repeats spend the reveal limit: past it ThrottlingException', async () => {
    const created = await client(owner).send(
      new CreateSecretCommand({ Name: 'vault/prod/LIMITED', SecretString: 'x', ClientRequestToken: token(4) }),
    );
    // A fresh key, so only these repeats count against its limit (120 a minute on the local stack).
    const sm = client(await awsKey(ws, { permissions: [{ projects: ['vault'], actions: ['write'] }] }));
    // Ten at a time until one is refused: at most two clock minutes' worth, whatever minute the loop began in.
    const names: string[] = [];
    while (!names.includes('ThrottlingException') && names.length < 250) {
      const batch = Array.from({ length: 10 }, (_, i) =>
        sm
          .send(
            new PutSecretValueCommand({ SecretId: created.ARN, SecretString: `guess-${names.length + i}`, ClientRequestToken: token(4) }),
          )
          .then(
            () => 'answered',
            (error: Error) => error.name,
          ),
      );
      names.push(...(await Promise.all(batch)));
    }
    const attempts = names.filter((name) => name === 'ResourceExistsException').length;
    expect(new Set(names)).toEqual(new Set(['ResourceExistsException', 'ThrottlingException']));
    // 120 a clock minute: at least one minute's worth and at most two before the refusal, whatever minute the loop
    // began in (concurrent requests of a container share one lease refill, so a wave of ten leases no more than it spends).
    expect(attempts).toBeGreaterThanOrEqual(120);
    expect(attempts).toBeLessThanOrEqual(240);
  });

  it('a VersionId derived for a REST-written version is never claimed by another value (and is its own retry with the same value)', async () => {
    const put = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key: 'RESTY', value: 'r1' } });
    const id = put.body.data.id as string;
    const sm = client(owner);
    const derived = derivedVersionId(id, 1);
    await expect(
      sm.send(new PutSecretValueCommand({ SecretId: 'vault/prod/RESTY', SecretString: 'r2', ClientRequestToken: derived })),
    ).rejects.toMatchObject({ name: 'ResourceExistsException' });
    expect(
      await sm.send(new PutSecretValueCommand({ SecretId: 'vault/prod/RESTY', SecretString: 'r1', ClientRequestToken: derived })),
    ).toMatchObject({
      VersionId: derived,
    });
    // The token of a version still to come would give one VersionId two meanings.
    await expect(
      sm.send(new PutSecretValueCommand({ SecretId: 'vault/prod/RESTY', SecretString: 'r3', ClientRequestToken: derivedVersionId(id, 9) })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException', message: expect.stringContaining('ClientRequestToken') });
    const got = await sm.send(new GetSecretValueCommand({ SecretId: 'vault/prod/RESTY', VersionId: derived }));
    expect(got).toMatchObject({ SecretString: 'r1', VersionId: derived });
    expect((await call('GET', `/api/v1/secrets/${id}`, { token: ws.apiKey })).body.data.currentVersion).toBe(1);
  });
});

const AWS_CLI = '/usr/bin/aws';
const available = existsSync(AWS_CLI);
if (!available && process.env.REQUIRE_AWS_CLIENTS) throw new Error(`${AWS_CLI} is required: apt-get install awscli`);

describe.skipIf(!available)('a repeated --client-request-token through the AWS CLI', () => {
  it("a write-only key guessing under another writer's token gets ResourceExistsException for the right value", async () => {
    const ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'vault', environment: 'prod' });
    const owner = await awsKey(ws);
    const created = await client(owner).send(
      new CreateSecretCommand({ Name: 'vault/prod/CLI_PIN', SecretString: '1234', ClientRequestToken: token(5) }),
    );
    const writer = await awsKey(ws, { permissions: [{ projects: ['vault'], actions: ['write'] }] });
    const env = { ...awsClientEnvironment(writer), AWS_MAX_ATTEMPTS: '1' };
    const args = ['--endpoint-url', inject('stack').baseUrl, 'secretsmanager', 'put-secret-value', '--secret-id', created.ARN!];
    const failed = await promisify(execFile)(AWS_CLI, [...args, '--secret-string', '1234', '--client-request-token', token(5)], {
      env,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 254, stderr: expect.stringContaining('ResourceExistsException') });
  });
});
