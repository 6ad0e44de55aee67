import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerSts, NodeSha256 } from '../../../bin/local/sts.ts';
import { awsIamSettings } from '../../../sdk/src/aws-iam.ts';
import { createClient } from '../../../sdk/src/client.ts';
import { ApiError } from '../../../sdk/src/errors.ts';
import { checkSignedRequest } from '../../../shared/access/iam-login.ts';
import { deferred, fakeApi, ok, refusal } from './fake-api.ts';

const AWS = { accessKeyId: 'AKIAUNITTEST00000001', secretAccessKey: 'unit-test-secret-access-key-0123456789' };
const STS = 'http://127.0.0.1:4566/';
const BASE = 'http://127.0.0.1:3000';

/** The AWS SDK's default chain reads these first; nothing of the machine's own AWS setup may count. */
function awsEnvironment(extra: Record<string, string | undefined> = {}): void {
  const env = {
    AWS_ACCESS_KEY_ID: AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_REGION: undefined,
    AWS_DEFAULT_REGION: undefined,
    SECRETS_AWS_STS_ENDPOINT: undefined,
    ...extra,
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the SDK logs in with AWS IAM', () => {
  beforeEach(() => awsEnvironment());

  it('posts a GetCallerIdentity request signed for sts/us-east-1 that the signer, the service and the STS stand-in all accept', async () => {
    // Prepare
    const api = fakeApi();
    const client = createClient({ baseUrl: BASE, auth: { accessKeyId: 'ak_1', method: 'aws_iam', stsEndpoint: STS }, fetch: api.fetch });
    // Act
    await client.api.GET('/api/v1/projects');
    // Assess: the login's shape, without Authorization
    expect(api.logins).toHaveLength(1);
    const { body, authorization } = api.logins[0]!;
    expect(authorization).toBeNull();
    expect(Object.keys(body).sort()).toEqual(['accessKeyId', 'method', 'signedRequest']);
    expect(body).toMatchObject({ accessKeyId: 'ak_1', method: 'aws_iam' });
    const signed = body.signedRequest!;
    expect(signed).toMatchObject({ url: STS, method: 'POST', body: 'Action=GetCallerIdentity&Version=2011-06-15' });
    expect(signed.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(signed.headers['x-service-server-id']).toBe('127.0.0.1:3000');
    const auth = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      signed.headers.authorization!,
    )!;
    expect(auth[1]).toMatch(new RegExp(`^${AWS.accessKeyId}/\\d{8}/us-east-1/sts/aws4_request$`));
    expect(auth[2]!.split(';')).toEqual(expect.arrayContaining(['content-type', 'host', 'x-amz-date', 'x-service-server-id']));
    // Assess: the signature recomputes with the AWS SDK's signer over the headers it names
    const url = new URL(signed.url);
    const { authorization: _, ...unsigned } = signed.headers;
    const date = signed.headers['x-amz-date']!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
    const signer = new SignatureV4({ service: 'sts', region: 'us-east-1', credentials: AWS, sha256: NodeSha256 });
    const again = await signer.sign(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        query: {},
        headers: unsigned,
        body: signed.body,
      },
      { signingDate: new Date(date) },
    );
    expect(again.headers.authorization).toBe(signed.headers.authorization);
    // Assess: the service's own checks and the local STS stand-in accept it; the API call went with the login's token
    expect(() => checkSignedRequest(signed, { stsEndpoint: STS, serverId: '127.0.0.1:3000', now: Date.now() })).not.toThrow();
    const sts = await answerSts(
      { method: 'POST', path: url.pathname, headers: signed.headers, body: signed.body },
      [{ ...AWS, arn: 'arn:aws:iam::123456789012:role/unit' }],
      Date.now(),
    );
    expect(sts.status).toBe(200);
    expect(api.requests.map((r) => r.authorization)).toEqual(['Bearer st_1']);
  });

  it('signs the session token of temporary credentials, and a server id that is given', async () => {
    // Prepare
    awsEnvironment({ AWS_SESSION_TOKEN: 'unit-session-token' });
    const api = fakeApi();
    const client = createClient({
      baseUrl: BASE,
      auth: { accessKeyId: 'ak_1', method: 'aws_iam', stsEndpoint: STS, serverId: 'secrets.example.com' },
      fetch: api.fetch,
    });
    // Act
    await client.api.GET('/api/v1/projects');
    // Assess
    const headers = api.logins[0]!.body.signedRequest!.headers;
    expect(headers['x-amz-security-token']).toBe('unit-session-token');
    expect(headers['x-service-server-id']).toBe('secrets.example.com');
    expect(headers.authorization).toMatch(/SignedHeaders=[^,]*x-amz-security-token/);
  });

  it.each([
    [
      'the option first',
      { stsEndpoint: 'https://sts.eu-west-2.amazonaws.com/' },
      { SECRETS_AWS_STS_ENDPOINT: STS, AWS_REGION: 'eu-central-1' },
      'https://sts.eu-west-2.amazonaws.com/',
      'eu-west-2',
    ],
    [
      'then SECRETS_AWS_STS_ENDPOINT, us-east-1 for a host that names no region whatever AWS_REGION says',
      {},
      { SECRETS_AWS_STS_ENDPOINT: STS, AWS_REGION: 'eu-central-1' },
      STS,
      'us-east-1',
    ],
    [
      'then the regional endpoint of AWS_REGION',
      {},
      { AWS_REGION: 'eu-central-1' },
      'https://sts.eu-central-1.amazonaws.com/',
      'eu-central-1',
    ],
    ['us-east-1 for a host that names no region', { stsEndpoint: STS }, {}, STS, 'us-east-1'],
    [
      'auth.region for a host that names no region',
      { stsEndpoint: STS, region: 'ap-south-1' },
      { AWS_REGION: 'eu-central-1' },
      STS,
      'ap-south-1',
    ],
    [
      'the region of an interface VPC endpoint',
      { stsEndpoint: 'https://vpce-0a1b2c-d3e4.sts.ca-central-1.vpce.amazonaws.com/' },
      { AWS_REGION: 'eu-central-1' },
      'https://vpce-0a1b2c-d3e4.sts.ca-central-1.vpce.amazonaws.com/',
      'ca-central-1',
    ],
    [
      "AWS_DEFAULT_REGION without AWS_REGION, and China's own domain",
      {},
      { AWS_DEFAULT_REGION: 'cn-north-1' },
      'https://sts.cn-north-1.amazonaws.com.cn/',
      'cn-north-1',
    ],
    [
      'us-east-1 for the global endpoint',
      { stsEndpoint: 'https://sts.amazonaws.com/' },
      { AWS_REGION: 'eu-central-1' },
      'https://sts.amazonaws.com/',
      'us-east-1',
    ],
  ])('settles the STS endpoint and region: %s', (_name, place, env, endpoint, region) => {
    // Act
    const settings = awsIamSettings(place, 'https://api.example.com:8443/prod', env);
    // Assess
    expect(settings).toEqual({ stsEndpoint: endpoint, region, serverId: 'api.example.com:8443' });
  });

  it('refuses at creation an IAM login without an STS endpoint, both token and auth, and neither', () => {
    // Prepare
    const base = { baseUrl: BASE, fetch: fakeApi().fetch };
    // Act / Assess
    expect(() => createClient({ ...base, auth: { accessKeyId: 'ak_1', method: 'aws_iam' } })).toThrow(
      /STS endpoint: auth.stsEndpoint, SECRETS_AWS_STS_ENDPOINT or AWS_REGION/,
    );
    expect(() => createClient({ ...base, token: 't', auth: { accessKeyId: 'ak_1', method: 'oidc', jwt: 'j' } } as never)).toThrow(
      /token or auth, not both/,
    );
    expect(() => createClient({ ...base } as never)).toThrow(/token or auth is required/);
  });
});

describe('the SDK logs in with OIDC', () => {
  it('posts the jwt given as a string', async () => {
    // Prepare
    const api = fakeApi();
    const client = createClient({ baseUrl: BASE, auth: { accessKeyId: 'ak_2', method: 'oidc', jwt: 'eyJ.unit.jwt' }, fetch: api.fetch });
    // Act
    await client.api.GET('/api/v1/projects');
    // Assess
    expect(api.logins.map((l) => l.body)).toEqual([{ accessKeyId: 'ak_2', method: 'oidc', jwt: 'eyJ.unit.jwt' }]);
  });

  it('asks a jwt function for a fresh token at each login', async () => {
    // Prepare
    let now = 1_000_000;
    let asked = 0;
    const api = fakeApi({ now: () => now, lifeMs: 60_000 });
    const client = createClient({
      baseUrl: BASE,
      auth: { accessKeyId: 'ak_2', method: 'oidc', jwt: async () => `jwt-${++asked}` },
      fetch: api.fetch,
      now: () => now,
    });
    // Act
    await client.api.GET('/api/v1/projects');
    now += 60_000;
    await client.api.GET('/api/v1/projects');
    // Assess
    expect(api.logins.map((l) => l.body.jwt)).toEqual(['jwt-1', 'jwt-2']);
  });

  it('rejects with ApiError AUTH_REQUIRED when the jwt function fails, never quoting a token', async () => {
    // Prepare
    const api = fakeApi();
    const client = createClient({
      baseUrl: BASE,
      auth: { accessKeyId: 'ak_2', method: 'oidc', jwt: () => Promise.reject(new Error('no token file')) },
      fetch: api.fetch,
    });
    // Act
    const failure = await client.api.GET('/api/v1/projects').catch((error: unknown) => error);
    // Assess
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({
      status: 401,
      code: 'AUTH_REQUIRED',
      message: 'AUTH_REQUIRED: oidc login: the jwt function failed: no token file',
    });
    expect(api.logins).toHaveLength(0);
  });
});

describe('the tokens of logins', () => {
  const oidc = { accessKeyId: 'ak_3', method: 'oidc' as const, jwt: 'eyJ.secret.jwt' };

  it('are shared: concurrent calls wait for one login', async () => {
    // Prepare
    const gate = deferred();
    const api = fakeApi({
      login: async (n) => (
        await gate.promise,
        ok({ token: `st_${n}`, expiresAt: new Date(Date.now() + 900_000).toISOString(), accessKeyId: 'ak_3', identityId: 'mid_1' })
      ),
    });
    const client = createClient({ baseUrl: BASE, auth: oidc, fetch: api.fetch });
    // Act
    const calls = [
      client.api.GET('/api/v1/projects'),
      client.api.GET('/api/v1/projects'),
      client.loadEnvironment({ project: 'payments', environment: 'production' }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 10));
    gate.resolve();
    await Promise.all(calls);
    // Assess
    expect(api.logins).toHaveLength(1);
    expect(new Set(api.requests.map((r) => r.authorization))).toEqual(new Set(['Bearer st_1']));
    expect(api.requests.length).toBe(4);
  });

  it('are renewed once less than 60 s of their life remain, not before', async () => {
    // Prepare
    let now = 5_000_000;
    const api = fakeApi({ now: () => now, lifeMs: 900_000 });
    const client = createClient({ baseUrl: BASE, auth: oidc, fetch: api.fetch, now: () => now });
    // Act
    await client.api.GET('/api/v1/projects');
    now += 839_000;
    await client.api.GET('/api/v1/projects');
    now += 2_000;
    await client.api.GET('/api/v1/projects');
    // Assess
    expect(api.logins).toHaveLength(2);
    expect(api.requests.map((r) => r.authorization)).toEqual(['Bearer st_1', 'Bearer st_1', 'Bearer st_2']);
  });

  it('are renewed with a tenth of their life left when that is less than 60 s', async () => {
    // Prepare
    let now = 5_000_000;
    const api = fakeApi({ now: () => now, lifeMs: 60_000 });
    const client = createClient({ baseUrl: BASE, auth: oidc, fetch: api.fetch, now: () => now });
    // Act
    await client.api.GET('/api/v1/projects');
    now += 53_000;
    await client.api.GET('/api/v1/projects');
    now += 2_000;
    await client.api.GET('/api/v1/projects');
    // Assess
    expect(api.requests.map((r) => r.authorization)).toEqual(['Bearer st_1', 'Bearer st_1', 'Bearer st_2']);
  });

  it('are replaced after a 401: one new login, and the call (its body intact) sent once more', async () => {
    // Prepare
    const api = fakeApi({
      api: (request) => (request.authorization === 'Bearer st_1' ? refusal(401, 'AUTH_REQUIRED', 'revoked') : ok({ id: 'proj_1' }, 201)),
    });
    const client = createClient({ baseUrl: BASE, auth: oidc, fetch: api.fetch });
    // Act
    const result = await client.api.POST('/api/v1/projects', { body: { name: 'Payments' } });
    // Assess
    expect(result.response.status).toBe(201);
    expect(api.logins).toHaveLength(2);
    expect(api.requests.map((r) => [r.authorization, r.body])).toEqual([
      ['Bearer st_1', '{"name":"Payments"}'],
      ['Bearer st_2', '{"name":"Payments"}'],
    ]);
  });

  it('do not loop on a second 401: the caller gets it after one new login', async () => {
    // Prepare
    const api = fakeApi({ api: () => refusal(401, 'AUTH_REQUIRED', 'the key was revoked') });
    const client = createClient({ baseUrl: BASE, auth: oidc, fetch: api.fetch });
    // Act
    const result = await client.api.GET('/api/v1/projects');
    // Assess
    expect(result.response.status).toBe(401);
    expect([api.logins.length, api.requests.length]).toEqual([2, 2]);
  });

  it('reject every call waiting on a refused login with ApiError, and the next call logs in again', async () => {
    // Prepare
    const api = fakeApi({
      login: (n) =>
        n === 1
          ? refusal(401, 'AUTH_REQUIRED', 'oidc: aud does not match')
          : ok({ token: 'st_ok', expiresAt: new Date(Date.now() + 900_000).toISOString(), accessKeyId: 'ak_3', identityId: 'mid_1' }),
    });
    const client = createClient({ baseUrl: BASE, auth: oidc, fetch: api.fetch });
    // Act
    const waiting = await Promise.allSettled([client.api.GET('/api/v1/projects'), client.api.GET('/api/v1/projects')]);
    const next = await client.api.GET('/api/v1/projects');
    // Assess
    for (const outcome of waiting) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as ApiError;
      expect(reason).toBeInstanceOf(ApiError);
      expect([reason.status, reason.code, reason.requestId]).toEqual([401, 'AUTH_REQUIRED', 'req_1']);
      expect(reason.message).not.toContain(oidc.jwt);
    }
    expect(next.response.status).toBe(200);
    expect(api.logins).toHaveLength(2);
    expect(api.requests.map((r) => r.authorization)).toEqual(['Bearer st_ok']);
  });
});

describe('the SDK entry module', () => {
  it('reaches the AWS packages only through import(), never through a static import chain', () => {
    // Prepare: every module the entry reaches by `import … from` / `export … from`, and what each imports from outside
    const src = join(import.meta.dirname, '..', '..', '..', 'sdk', 'src');
    const reached = new Set<string>();
    const outside = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = readFileSync(join(src, file), 'utf8');
      for (const [, spec] of text.matchAll(/^(?:import|export)(?! type)[^;]*?from '([^']+)'/gms)) {
        if (spec!.startsWith('.')) visit(join(dirname(file), spec!.replace(/\.js$/, '.ts')));
        else outside.add(spec!);
      }
    };
    // Act
    visit('index.ts');
    // Assess
    expect(reached).toContain('aws-iam.ts');
    expect([...outside].sort()).toEqual(['node:crypto', 'openapi-fetch']);
    expect(readFileSync(join(src, 'aws-iam.ts'), 'utf8')).toMatch(
      /import\('@smithy\/signature-v4'\), import\('@aws-sdk\/credential-providers'\)/,
    );
  });
});
