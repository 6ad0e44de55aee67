import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../../sdk/src/client.ts';
import { ApiError } from '../../../sdk/src/errors.ts';
import { secretsService, type SecretsServiceOptions } from '../../../sdk/src/middy.ts';
import { fakeApi, refusal } from './fake-api.ts';

/** A Lambda context as the handler's type asks for it (the middleware adds `secrets`). */
const context = () => ({ functionName: 'unit' }) as Context & { secrets: Record<string, string> };
const BASE = 'https://api.example.com';

/** A handler behind the middleware that answers what it found in its context. */
function handlerWith(options: SecretsServiceOptions) {
  // timeoutEarlyInMillis 0: no timer of middy's outlives a test.
  return middy({ timeoutEarlyInMillis: 0 })
    .use(secretsService(options))
    .handler(async (_event: unknown, ctx: Context & { secrets?: Record<string, string> }) => ctx.secrets);
}

const reveals = (api: ReturnType<typeof fakeApi>) => api.requests.filter((r) => r.path.endsWith('/secrets/reveal')).length;

describe('the secretsService middy middleware', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    vi.unstubAllGlobals();
  });

  it('puts the environment in context.secrets and reuses it until cacheExpiry has passed', async () => {
    // Prepare
    const api = fakeApi();
    const handler = handlerWith({
      project: 'payments',
      environment: 'production',
      client: createClient({ baseUrl: BASE, token: 'st_unit', fetch: api.fetch }),
      cacheExpiry: 60_000,
    });
    // Act
    const first = await handler({}, context());
    vi.advanceTimersByTime(59_000);
    const second = await handler({}, context());
    const withinExpiry = reveals(api);
    vi.advanceTimersByTime(1_000);
    const third = await handler({}, context());
    // Assess
    expect(first).toEqual({ DATABASE_URL: 'postgres://db' });
    expect([second, third]).toEqual([first, first]);
    expect([withinExpiry, reveals(api)]).toEqual([1, 2]);
  });

  it('loads at every invocation with cacheExpiry 0, and once for good with -1 or Infinity', async () => {
    // Prepare
    const apis = [fakeApi(), fakeApi(), fakeApi()];
    const handlers = [0, -1, Infinity].map((cacheExpiry, i) =>
      handlerWith({
        project: 'payments',
        environment: 'production',
        client: createClient({ baseUrl: BASE, token: 'st_unit', fetch: apis[i]!.fetch }),
        cacheExpiry,
      }),
    );
    // Act
    for (const handler of handlers) {
      await handler({}, context());
      vi.advanceTimersByTime(86_400_000);
      await handler({}, context());
    }
    // Assess
    expect(apis.map(reveals)).toEqual([2, 1, 1]);
  });

  it('fails the invocation when the environment cannot be loaded, and tries again at the next one', async () => {
    // Prepare
    let refuse = true;
    const api = fakeApi({
      api: (request) => (refuse && request.path.endsWith('/reveal') ? refusal(403, 'FORBIDDEN', 'reveal is not allowed') : undefined),
    });
    const handler = handlerWith({
      project: 'payments',
      environment: 'production',
      client: createClient({ baseUrl: BASE, token: 'st_unit', fetch: api.fetch }),
    });
    // Act
    const failure = await handler({}, context()).catch((error: unknown) => error);
    refuse = false;
    const next = await handler({}, context());
    // Assess
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(next).toEqual({ DATABASE_URL: 'postgres://db' });
  });

  it('leaves the context alone with setToContext false, the values in request.internal', async () => {
    // Prepare
    const api = fakeApi();
    let internal: unknown;
    const handler = middy({ timeoutEarlyInMillis: 0 })
      .use(
        secretsService({
          project: 'payments',
          environment: 'production',
          client: createClient({ baseUrl: BASE, token: 'st_unit', fetch: api.fetch }),
          setToContext: false,
        }),
      )
      .before((request) => {
        internal = request.internal.secrets;
      })
      .handler(async (_event: unknown, ctx: Context) => 'secrets' in ctx);
    // Act
    const inContext = await handler({}, context());
    // Assess
    expect(inContext).toBe(false);
    expect(internal).toEqual({ DATABASE_URL: 'postgres://db' });
  });

  it('makes its client from SECRETS_API_URL and SECRETS_TOKEN', async () => {
    // Prepare
    const api = fakeApi();
    vi.stubGlobal('fetch', api.fetch);
    vi.stubEnv('SECRETS_API_URL', BASE);
    vi.stubEnv('SECRETS_TOKEN', 'st_from_env');
    vi.stubEnv('SECRETS_ACCESS_KEY_ID', undefined);
    // Act
    const secrets = await handlerWith({ project: 'payments', environment: 'production' })({}, context());
    // Assess
    expect(secrets).toEqual({ DATABASE_URL: 'postgres://db' });
    expect(new Set(api.requests.map((r) => r.authorization))).toEqual(new Set(['Bearer st_from_env']));
  });

  it('logs in with AWS IAM when SECRETS_ACCESS_KEY_ID is set', async () => {
    // Prepare
    const api = fakeApi();
    vi.stubGlobal('fetch', api.fetch);
    const env = {
      SECRETS_API_URL: BASE,
      SECRETS_ACCESS_KEY_ID: 'ak_lambda',
      SECRETS_TOKEN: undefined,
      SECRETS_AWS_STS_ENDPOINT: 'https://sts.eu-west-1.amazonaws.com/',
      AWS_ACCESS_KEY_ID: 'AKIAUNITTEST00000002',
      AWS_SECRET_ACCESS_KEY: 'unit-secret',
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    // Act
    const secrets = await handlerWith({ project: 'payments', environment: 'production' })({}, context());
    // Assess
    expect(secrets).toEqual({ DATABASE_URL: 'postgres://db' });
    expect(api.logins.map((l) => [l.body.accessKeyId, l.body.method, l.body.signedRequest?.headers['x-service-server-id']])).toEqual([
      ['ak_lambda', 'aws_iam', 'api.example.com'],
    ]);
    expect(new Set(api.requests.map((r) => r.authorization))).toEqual(new Set(['Bearer st_1']));
  });

  it('fails the invocation, naming what is missing, without SECRETS_API_URL or a credential', async () => {
    // Prepare
    vi.stubEnv('SECRETS_API_URL', undefined);
    const withoutUrl = handlerWith({ project: 'payments', environment: 'production' });
    // Act / Assess
    await expect(withoutUrl({}, context())).rejects.toThrow(/SECRETS_API_URL is required/);
    vi.stubEnv('SECRETS_API_URL', BASE);
    vi.stubEnv('SECRETS_TOKEN', undefined);
    vi.stubEnv('SECRETS_ACCESS_KEY_ID', undefined);
    await expect(withoutUrl({}, context())).rejects.toThrow(/SECRETS_ACCESS_KEY_ID or SECRETS_TOKEN is required/);
  });
});
