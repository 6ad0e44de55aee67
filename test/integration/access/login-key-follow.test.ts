import { beforeAll, describe, expect, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { iamLogin, signedRequest, stsIdentity, type StsIdentity } from '../../support/login.ts';
import { newEnvironment } from '../../support/secrets.ts';

/**
 * A login token follows its key at once, on every route (decisions.md, "Hardening v1.3"), the reveal routes included,
 * which read their own items eventually consistently: the key's state on the workspace item is read strongly
 * consistent with an `st_` token there too. DynamoDB Local is always consistent, so this checks the behaviour on
 * each reveal route; test/unit/access/login-key-consistency.test.ts checks the read itself.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
let ws: Ws;
let workload: StsIdentity;
let envId: string;
const ids: Record<string, string> = {};

const ROLE = 'arn:aws:iam::123456789012:role/follow-workload';
const SECRETS = { DB_PASSWORD: 'hunter2', API_KEY: 'not-for-ci' };

/** Each reveal route, asked for `key` with `token`: by id, by path, and loading the environment. */
const REVEALS = {
  byId: (token: string, key: keyof typeof SECRETS) => call('POST', `/api/v1/secrets/${ids[key]}/reveal`, { token }),
  byPath: (token: string, key: keyof typeof SECRETS) => call('POST', '/api/v1/reveal', { token, body: { path: `payments/prod/${key}` } }),
  bulk: (token: string, key: keyof typeof SECRETS) =>
    call('POST', `/api/v1/environments/${envId}/secrets/reveal`, { token, body: { keys: [key] } }),
};
type Route = keyof typeof REVEALS;
const ROUTES = Object.keys(REVEALS) as Route[];

/** The values a reveal answered: one for by id and by path, those of the page for a bulk reveal; its error code else. */
const valuesOf = (answer: { status: number; body: any }) =>
  answer.status !== 200
    ? answer.body.error?.code
    : Array.isArray(answer.body.data)
      ? answer.body.data.map((secret: { value: string }) => secret.value)
      : [answer.body.data.value];

/** An access key of the workload revealing `keys` alone, and one login token per reveal route, each unused. */
async function keyWithTokens(keys: string[]) {
  const key = await call('POST', '/api/v1/access-keys', {
    token: ws.apiKey,
    body: {
      name: 'follow',
      auth: { type: 'aws_iam', principalArns: [ROLE] },
      permissions: [{ projects: ['payments'], environments: ['prod'], keys, actions: ['reveal'] }],
    },
  });
  expect(key.status).toBe(201);
  const tokens = {} as Record<Route, string>;
  for (const route of ROUTES) {
    const login = await iamLogin(key.body.data.id, await signedRequest(workload));
    expect(login.status).toBe(200);
    tokens[route] = login.body.data.token;
  }
  return { id: key.body.data.id as string, tokens };
}

beforeAll(async () => {
  ws = await newWorkspace();
  workload = await stsIdentity(ROLE);
  const { environment } = await newEnvironment(ws.apiKey, { project: 'payments', environment: 'prod' });
  envId = environment.id;
  for (const [key, value] of Object.entries(SECRETS)) {
    const put = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } });
    expect(put.status).toBe(200);
    ids[key] = put.body.data.id;
  }
});

describe('a login token on the reveal routes, on its first request after its key changed', () => {
  it('acts under the new rules after a PATCH: reveals what they allow now, and not what they allowed before', async () => {
    // Prepare: tokens of a key that may reveal DB_* alone, then the key changed to API_* alone
    const asksNew = await keyWithTokens(['DB_*']);
    const asksOld = await keyWithTokens(['DB_*']);
    const patched = await call('PATCH', `/api/v1/access-keys/${asksNew.id}`, {
      token: ws.apiKey,
      body: { permissions: [{ projects: ['payments'], environments: ['prod'], keys: ['API_*'], actions: ['reveal'] }] },
    });
    expect(patched.status).toBe(200);
    const patchedToo = await call('PATCH', `/api/v1/access-keys/${asksOld.id}`, {
      token: ws.apiKey,
      body: { permissions: [{ projects: ['payments'], environments: ['prod'], keys: ['API_*'], actions: ['reveal'] }] },
    });
    expect(patchedToo.status).toBe(200);
    // Act: each token's first request, one reveal route each
    const allowedNow = Object.fromEntries(
      await Promise.all(ROUTES.map(async (route) => [route, valuesOf(await REVEALS[route](asksNew.tokens[route], 'API_KEY'))])),
    );
    const allowedBefore = Object.fromEntries(
      await Promise.all(ROUTES.map(async (route) => [route, valuesOf(await REVEALS[route](asksOld.tokens[route], 'DB_PASSWORD'))])),
    );
    // Assess
    expect(allowedNow).toEqual({ byId: ['not-for-ci'], byPath: ['not-for-ci'], bulk: ['not-for-ci'] });
    // Outside the rules now: not found by id or path; the bulk reveal answers only what the key may reveal.
    expect(allowedBefore).toEqual({ byId: 'NOT_FOUND', byPath: 'NOT_FOUND', bulk: [] });
  });

  it('acts under the new networks after a PATCH of allowedCidrs: FORBIDDEN from outside them', async () => {
    // Prepare
    const key = await keyWithTokens(['**']);
    const fenced = await call('PATCH', `/api/v1/access-keys/${key.id}`, { token: ws.apiKey, body: { allowedCidrs: ['203.0.113.0/24'] } });
    expect(fenced.status).toBe(200);
    // Act
    const answers = Object.fromEntries(
      await Promise.all(ROUTES.map(async (route) => [route, valuesOf(await REVEALS[route](key.tokens[route], 'DB_PASSWORD'))])),
    );
    // Assess
    expect(answers).toEqual({ byId: 'FORBIDDEN', byPath: 'FORBIDDEN', bulk: 'FORBIDDEN' });
  });

  it('is refused after a revoke', async () => {
    // Prepare: tokens that revealed a moment ago, then the key revoked
    const key = await keyWithTokens(['**']);
    const working = await REVEALS.byPath(key.tokens.byPath, 'DB_PASSWORD');
    expect(valuesOf(working)).toEqual(['hunter2']);
    expect((await call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey })).status).toBe(200);
    // Act
    const answers = await Promise.all(ROUTES.map((route) => REVEALS[route](key.tokens[route], 'DB_PASSWORD')));
    // Assess
    expect(answers.map((answer) => [answer.status, answer.body.error?.code, answer.body.error?.message])).toEqual(
      ROUTES.map(() => [401, 'AUTH_REQUIRED', expect.stringMatching(/revoked/)]),
    );
  });
});
