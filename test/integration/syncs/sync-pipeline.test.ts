import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { startGithubStandIn, type GithubStandIn } from '../../support/github-stand-in.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';

/**
 * Syncs end to end over the local stack (decisions.md v1.4, "Syncs"): the table's stream, the fan-out's trigger, the
 * sync queue and the worker, pushing to a GitHub stand-in that opens every sealed box with its private key (a wrong
 * encryption fails there). Retry delays and the 24-hour window run 10,000 times faster (WEBHOOK_TIME_SCALE).
 */

const TOKEN = 'ghp_PipelineToken0123456789abcdef';
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let envId: string;
let github: GithubStandIn;

const put = (key: string, value: string) =>
  call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } }).then((answer) => {
    expect(answer.status).toBeLessThan(300);
    return answer.body.data as { id: string; version: number };
  });
const createSync = async (repository: string, more: Record<string, unknown> = {}) => {
  const answer = await call('POST', '/api/v1/syncs', {
    token: ws.apiKey,
    body: { environmentId: envId, destination: { type: 'github-actions', repository, token: TOKEN, apiUrl: github.apiUrl }, ...more },
  });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: string };
};
const syncOf = async (id: string) => (await call('GET', `/api/v1/syncs/${id}`, { token: ws.apiKey })).body.data;
const pushed = (repository: string, name: string, value: string, what = `${repository} ${name}=${value}`) =>
  waitFor(async () => github.secret(repository, name) === value, 30_000, what);

beforeAll(async () => {
  github = await startGithubStandIn({ token: TOKEN, certificate: inject('tls') });
  ws = await newWorkspace();
  envId = (await newEnvironment(ws.apiKey, { project: 'pipe', environment: 'prod' })).environment.id;
  await put('DB_USER', 'app');
  await put('DB_URL', 'postgres://${DB_USER}@db.internal/app');
  await put('OTHER', 'not synced');
});

afterAll(() => github.close());

describe('a sync pushes through the pipeline', () => {
  it('pushes every matching value when made, references resolved, each value audited as a reveal with syncId first', async () => {
    const sync = await createSync('acme/app', { keys: 'DB_*' });
    await pushed('acme/app', 'DB_URL', 'postgres://app@db.internal/app');
    await pushed('acme/app', 'DB_USER', 'app');
    expect(github.names('acme/app')).toEqual(['DB_URL', 'DB_USER']);
    expect(await waitFor(async () => (await syncOf(sync.id)).status === 'ok' && syncOf(sync.id))).toMatchObject({
      lastError: null,
      lastSyncedAt: expect.any(String),
    });
    const audit = await call('GET', '/api/v1/audit?action=secret.reveal&limit=100', { token: ws.apiKey });
    const reveals = (audit.body.data as { metadata: Record<string, unknown> }[]).filter((entry) => entry.metadata.syncId === sync.id);
    // DB_USER and DB_URL, and DB_USER again as the target DB_URL's reference revealed (via).
    expect(reveals.map((entry) => entry.metadata.key).sort()).toEqual(['DB_URL', 'DB_USER', 'DB_USER']);
    expect(reveals.filter((entry) => entry.metadata.via)).toHaveLength(1);
  });

  it('20 writes of one key in quick succession leave the destination at the last value; a change of a target reaches its dependents', async () => {
    await createSync('acme/order', { keys: 'DB_*' });
    await pushed('acme/order', 'DB_USER', 'app');
    for (let i = 1; i <= 20; i++) await put('DB_USER', `user-${i}`);
    await pushed('acme/order', 'DB_USER', 'user-20');
    // The referencing secret follows its target's change (the reverse index), resolved.
    await pushed('acme/order', 'DB_URL', 'postgres://user-20@db.internal/app');
    // Late pushes of older changes send what is current: the last value stays.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(github.secret('acme/order', 'DB_USER')).toBe('user-20');
  });

  it('a destination down for a while, then up, ends ok with every key at its current value', async () => {
    const sync = await createSync('acme/down', { keys: 'DB_USER' });
    await pushed('acme/down', 'DB_USER', github.secret('acme/order', 'DB_USER')!);
    github.failNext(503, 6);
    await put('DB_USER', 'after-outage');
    await waitFor(async () => (await syncOf(sync.id)).lastError?.includes('503'), 20_000, 'the failure recorded');
    await pushed('acme/down', 'DB_USER', 'after-outage');
    expect(await waitFor(async () => (await syncOf(sync.id)).status === 'ok' && syncOf(sync.id))).toMatchObject({ lastError: null });
  });

  it('prune removes at the destination what the sync wrote that left the environment; without prune it stays', async () => {
    await put('TMP_KEY', 'short-lived');
    await createSync('acme/prune', { keys: 'TMP_*', prune: true });
    await createSync('acme/keep', { keys: 'TMP_*' });
    await pushed('acme/prune', 'TMP_KEY', 'short-lived');
    await pushed('acme/keep', 'TMP_KEY', 'short-lived');
    const { id } = (await call('GET', `/api/v1/environments/${envId}/secrets?limit=100`, { token: ws.apiKey })).body.data.find(
      (secret: { key: string }) => secret.key === 'TMP_KEY',
    );
    expect((await call('DELETE', `/api/v1/secrets/${id}`, { token: ws.apiKey })).status).toBe(200);
    await waitFor(async () => !github.names('acme/prune').includes('TMP_KEY'), 30_000, 'the pruned key removed');
    expect(github.names('acme/keep')).toEqual(['TMP_KEY']);
  });
});

describe("syncs to AWS (moto's server, the stack's SYNC_AWS_ENDPOINT)", () => {
  const aws = { endpoint: inject('syncAws'), region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };

  it('Parameter Store: SecureString parameters under the prefix, the current value after changes, pruned when deleted', async () => {
    const ssm = new SSMClient(aws);
    const prefix = `/pipe/${ws.workspaceId}/`;
    await put('SSM_KEY', 'first');
    const answer = await call('POST', '/api/v1/syncs', {
      token: ws.apiKey,
      body: { environmentId: envId, keys: 'SSM_*', prune: true, destination: { type: 'aws-ssm', region: 'us-east-1', pathPrefix: prefix } },
    });
    expect(answer.status).toBe(201);
    const parameter = async (name: string) =>
      (await ssm.send(new GetParameterCommand({ Name: `${prefix}${name}`, WithDecryption: true })).catch(() => undefined))?.Parameter;
    await waitFor(async () => (await parameter('SSM_KEY'))?.Value === 'first', 30_000, 'the parameter');
    expect((await parameter('SSM_KEY'))?.Type).toBe('SecureString');
    await put('SSM_KEY', 'second');
    await waitFor(async () => (await parameter('SSM_KEY'))?.Value === 'second', 30_000, 'the new value');
    const { id } = (await call('GET', `/api/v1/environments/${envId}/secrets?limit=100`, { token: ws.apiKey })).body.data.find(
      (secret: { key: string }) => secret.key === 'SSM_KEY',
    );
    await call('DELETE', `/api/v1/secrets/${id}`, { token: ws.apiKey });
    await waitFor(
      async () => ((await ssm.send(new GetParametersByPathCommand({ Path: prefix }))).Parameters ?? []).length === 0,
      30_000,
      'the parameter pruned',
    );
  });

  it('Secrets Manager in json mode: one secret holding every matching key as a JSON object', async () => {
    const manager = new SecretsManagerClient(aws);
    const name = `pipe/${ws.workspaceId}/json`;
    await call('POST', '/api/v1/syncs', {
      token: ws.apiKey,
      body: {
        environmentId: envId,
        keys: 'DB_*',
        destination: { type: 'aws-secrets-manager', region: 'us-east-1', namePrefix: name, mode: 'json' },
      },
    });
    const object = async () => {
      const value = await manager.send(new GetSecretValueCommand({ SecretId: name })).catch(() => undefined);
      return value?.SecretString ? (JSON.parse(value.SecretString) as Record<string, string>) : undefined;
    };
    await put('DB_USER', 'json-user');
    await waitFor(async () => (await object())?.DB_URL === 'postgres://json-user@db.internal/app', 30_000, 'the JSON secret');
    expect(await object()).toEqual({ DB_USER: 'json-user', DB_URL: 'postgres://json-user@db.internal/app' });
  });
});

describe('a sync that keeps failing', () => {
  it('a revoked token makes it failing after 24 (scaled) hours, with service.sync.failed once; a success recovers it', async () => {
    const receiver = await startReceiver();
    try {
      await registerEndpoint(ws.apiKey, `${receiver.origin}/syncs`, ['service.sync.failed', 'service.sync.recovered']);
      const revoked = await startGithubStandIn({ token: TOKEN, certificate: inject('tls') });
      revoked.failNext(401);
      const answer = await call('POST', '/api/v1/syncs', {
        token: ws.apiKey,
        body: {
          environmentId: envId,
          keys: 'DB_USER',
          destination: { type: 'github-actions', repository: 'acme/revoked', token: TOKEN, apiUrl: revoked.apiUrl },
        },
      });
      const sync = answer.body.data as { id: string };
      const failing = await waitFor(
        async () => ((await syncOf(sync.id)).status === 'failing' ? syncOf(sync.id) : undefined),
        40_000,
        'failing',
      );
      expect(failing.lastError).toContain('401');
      const failed = () => receiver.requests.filter((request) => request.body.includes('"service.sync.failed"'));
      await waitFor(async () => failed().length > 0, 20_000, 'service.sync.failed');
      // Further failures (a change, a run) fire nothing more.
      await call('POST', `/api/v1/syncs/${sync.id}/run`, { token: ws.apiKey });
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(failed()).toHaveLength(1);
      expect(JSON.parse(failed()[0]!.body).data).toMatchObject({
        syncId: sync.id,
        environmentId: envId,
        destinationType: 'github-actions',
      });
      // The token works again: the next push makes it ok and fires service.sync.recovered.
      revoked.failNext(401, 0);
      await call('POST', `/api/v1/syncs/${sync.id}/run`, { token: ws.apiKey });
      await waitFor(async () => (await syncOf(sync.id)).status === 'ok', 20_000, 'ok again');
      await waitFor(
        async () => receiver.requests.some((request) => request.body.includes('"service.sync.recovered"')),
        20_000,
        'recovered',
      );
      await revoked.close();
    } finally {
      await receiver.close();
    }
  });
});
