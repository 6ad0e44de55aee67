import { beforeAll, describe, expect, it } from 'vitest';
import { auditEntry } from '../../shared/audit/audit-entry.ts';
import { call, localStore, newWorkspace } from '../support/api.ts';
import { machineAuthority } from '../../shared/access/permissions.ts';

type Ws = Awaited<ReturnType<typeof newWorkspace>>;

/** The fields decisions.md gives an access key record; an answer carries these and nothing else. */
const ACCESS_KEY_FIELDS = [
  'allowedCidrs',
  'auth',
  'createdAt',
  'createdBy',
  'expiresAt',
  'id',
  'identityId',
  'lastUsedAt',
  'name',
  'permissions',
  'revokedAt',
  'status',
  'tokenPrefix',
  'tokenTtlSeconds',
];

describe('hardening', () => {
  let ws: Ws;
  beforeAll(async () => {
    ws = await newWorkspace();
  });

  it('six parallel revokes of one key answer only the record fields, whichever wins the race', async () => {
    // Prepare
    const key = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'raced' } })).body.data;
    // Act
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', `/api/v1/access-keys/${key.id}/revoke`, { token: ws.apiKey })),
    );
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body.data).sort()).toEqual(ACCESS_KEY_FIELDS);
      expect(answer.body.data.status).toBe('revoked');
    }
  });
});

describe('well-formed strings', () => {
  let ws: Ws;
  let envId: string;
  beforeAll(async () => {
    ws = await newWorkspace();
    const project = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'unicode' } })).body.data;
    envId = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token: ws.apiKey, body: { name: 'prod' } })).body.data.id;
  });

  it('refuses a value or a name with a lone surrogate, naming the field, and writes nothing', async () => {
    // Prepare: JSON escapes, so the lone surrogate reaches the service as it was sent
    const put = (body: string) =>
      call('PUT', `/api/v1/environments/${envId}/secrets`, {
        token: ws.apiKey,
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });
    // Act
    const value = await put('{"key":"LONE","value":"abc\\ud800def"}');
    const name = await call('POST', '/api/v1/projects', {
      token: ws.apiKey,
      rawBody: '{"name":"x\\udc00"}',
      headers: { 'content-type': 'application/json' },
    });
    // Assess
    expect(value.status).toBe(400);
    expect(value.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'value: must be well-formed Unicode (a lone surrogate is not)' });
    expect(name.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'name: must be well-formed Unicode (a lone surrogate is not)' });
    const listed = await call('GET', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey });
    expect(listed.body.data).toEqual([]);
  });

  it('stores and reveals astral characters, combining marks and the empty string exactly', async () => {
    for (const [key, value] of [
      ['ASTRAL', '🔑 𝒜𝒷𝒸 \u{10FFFF} e\u0301'],
      ['EMPTY', ''],
    ] as const) {
      const written = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } });
      const revealed = await call('POST', `/api/v1/secrets/${written.body.data.id}/reveal`, { token: ws.apiKey });
      expect(revealed.body.data.value).toBe(value);
    }
  });
});

describe('caps', () => {
  it('the 101st active access key is LIMIT_EXCEEDED, and a revoke frees a slot', async () => {
    // Prepare: 100 keys, made in parallel batches
    const ws = await newWorkspace();
    const create = (name: string) => call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name } });
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => create(`k${batch * 10 + i}`)));
      for (const answer of made) {
        expect(answer.status).toBe(201);
        ids.push(answer.body.data.id);
      }
    }
    // Act
    const over = await create('one too many');
    await call('POST', `/api/v1/access-keys/${ids[0]}/revoke`, { token: ws.apiKey });
    await call('POST', `/api/v1/access-keys/${ids[0]}/revoke`, { token: ws.apiKey });
    const freed = await create('in the freed slot');
    const overAgain = await create('over again');
    // Assess: a repeated revoke frees nothing more
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('LIMIT_EXCEEDED');
    expect(freed.status).toBe(201);
    expect(overAgain.body.error.code).toBe('LIMIT_EXCEEDED');
  });
});

describe('the workspace reveal ceiling', () => {
  it('counts every credential of the workspace together: more keys cannot multiply the per-credential limit', async () => {
    // Prepare: a limit of 3 per credential and 4 for the workspace, in one fixed minute
    const ws = await newWorkspace();
    const { store } = localStore();
    const now = Date.parse('2026-01-01T00:00:30Z');
    const reveal = (credentialId: string) => {
      const principal = {
        workspaceId: ws.workspaceId,
        accountId: 'acc_x',
        kind: 'machine' as const,
        actorSub: 'mid_x',
        credentialId,
        authority: machineAuthority(undefined),
      };
      const audit = auditEntry(principal, 'secret.reveal', 'sec_x', { key: 'K' }, now);
      return store.recordReveal(ws.workspaceId, audit, { credentialId, perMinute: 3, workspacePerMinute: 4, now });
    };
    // Act
    for (const credential of ['ak_a', 'ak_a', 'ak_a', 'ak_b']) await reveal(credential);
    const [overCredential, overWorkspace] = await Promise.allSettled([reveal('ak_a'), reveal('ak_c')]);
    // Assess
    expect(overCredential).toMatchObject({
      status: 'rejected',
      reason: { code: 'RATE_LIMITED', message: 'reveals: at most 3 per minute per credential' },
    });
    expect(overWorkspace).toMatchObject({
      status: 'rejected',
      reason: { code: 'RATE_LIMITED', message: 'reveals: at most 4 per minute for the workspace', headers: { 'Retry-After': '30' } },
    });
  });
});

describe('workspace API keys', () => {
  it('record lastUsedAt like access keys, at most once a minute', async () => {
    // Prepare
    const ws = await newWorkspace();
    const { store } = localStore();
    // Act
    await call('GET', '/api/v1/projects', { token: ws.apiKey });
    const first = (await store.getApiKey(ws.workspaceId, ws.apiKeyId))!.lastUsedAt;
    await call('GET', '/api/v1/projects', { token: ws.apiKey });
    // Assess
    expect(first).not.toBeNull();
    expect((await store.getApiKey(ws.workspaceId, ws.apiKeyId))!.lastUsedAt).toBe(first);
  });
});
