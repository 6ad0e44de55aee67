import { describe, expect, it, beforeAll } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { hashToken, issueToken } from '../../../shared/access/tokens.ts';
import { keys, ENTITY } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace, stackMacs, userToken } from '../../support/api.ts';
import { crc32 } from 'node:zlib';
import { randomBytes } from 'node:crypto';

/**
 * Writes a machine token straight into the table, as the access-keys routes store one; `token` may be of a form
 * issued before keyed checksums.
 */
async function machineToken(workspaceId: string, options: { expiresAt?: string; revokedAt?: string } = {}, given?: string) {
  const token = given ?? issueToken(await stackMacs(), 'machine', workspaceId);
  const { doc, tableName } = localStore();
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.token(hashToken(token)),
        type: ENTITY.token,
        kind: 'machine',
        workspaceId,
        credentialId: 'ak_01JZZZZZZZZZZZZZZZZZZZZZZZ',
        actorSub: 'mid_01JZZZZZZZZZZZZZZZZZZZZZZZ',
        ...options,
      },
    }),
  );
  return token;
}

/** 43 base64url characters, as the random part of every issued token. */
function issueTokenRandom(): string {
  return randomBytes(32).toString('base64url');
}

describe('authentication', () => {
  let ws: Awaited<ReturnType<typeof newWorkspace>>;
  beforeAll(async () => {
    ws = await newWorkspace();
  });

  it('answers AUTH_REQUIRED without a token, with a malformed one and with an unknown one', async () => {
    for (const token of [undefined, 'garbage', `${ws.apiKey}x`, issueToken(await stackMacs(), 'apiKey', ws.workspaceId)]) {
      const answer = await call('GET', '/api/v1/projects', { token });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('AUTH_REQUIRED');
      expect(answer.body.data).toBeNull();
      expect(answer.body.meta.requestId).toMatch(/^req_/);
      expect(answer.headers.get('x-request-id')).toBe(answer.body.meta.requestId);
    }
  });

  it('refuses a token whose embedded workspace was altered', async () => {
    // Prepare: the random part and its checksum kept, so only the workspace differs
    const other = await newWorkspace();
    const forged = `${ws.apiKey.slice(0, 8 + 43 + 8)}${other.workspaceId.slice(3)}`;
    // Act
    const answer = await call('GET', '/api/v1/projects', { token: forged });
    // Assess
    expect(answer.status).toBe(401);
    expect(answer.body.error).toEqual({ code: 'AUTH_REQUIRED', message: 'Authorization: the token is not valid' });
  });

  it('refuses a token whose keyed checksum fails, and the stored tokens of both forms issued before keyed checksums', async () => {
    // Prepare: a working key with one character of its random part changed; stored tokens without a checksum and
    // with the unkeyed CRC32 checksum (both were valid before), each in the table as the old code stored them
    const at = 8 + 20;
    const mistyped = `${ws.apiKey.slice(0, at)}${ws.apiKey[at] === 'A' ? 'B' : 'A'}${ws.apiKey.slice(at + 1)}`;
    const random = () => issueTokenRandom();
    const base62 = (n: number) =>
      Array.from(
        { length: 6 },
        (_, i) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[Math.floor(n / 62 ** (5 - i)) % 62],
      ).join('');
    const withoutChecksum = await machineToken(ws.workspaceId, {}, `st_${random()}${ws.workspaceId.slice(3)}`);
    const crcRandom = random();
    const unkeyed = await machineToken(ws.workspaceId, {}, `st_${crcRandom}${base62(crc32(crcRandom))}${ws.workspaceId.slice(3)}`);
    const current = await machineToken(ws.workspaceId);
    // Act
    const answers = await Promise.all(
      [mistyped, withoutChecksum, unkeyed, current].map((token) => call('GET', '/api/v1/projects', { token })),
    );
    // Assess
    expect([withoutChecksum.length, unkeyed.length, current.length]).toEqual([3 + 43 + 26, 3 + 43 + 6 + 26, 3 + 43 + 8 + 26]);
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 200]);
    for (const refused of answers.slice(0, 3))
      expect(refused.body.error).toEqual({ code: 'AUTH_REQUIRED', message: 'Authorization: the token is not valid' });
  });

  it('refuses a revoked API key on its next request', async () => {
    const key = await ws.admin.createApiKey(ws.workspaceId, 'to revoke');
    expect((await call('GET', '/api/v1/projects', { token: key.apiKey })).status).toBe(200);
    await ws.admin.revokeApiKey(ws.workspaceId, key.id);
    const answer = await call('GET', '/api/v1/projects', { token: key.apiKey });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toEqual({ code: 'AUTH_REQUIRED', message: 'Authorization: the token has been revoked' });
  });

  it('answers WORKSPACE_NOT_ALLOWLISTED for a valid key of a workspace off the allowlist', async () => {
    const outsider = await newWorkspace({ allowlisted: false });
    const answer = await call('GET', '/api/v1/projects', { token: outsider.apiKey });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('WORKSPACE_NOT_ALLOWLISTED');
    await outsider.admin.setAllowlisted(outsider.workspaceId, true);
    expect((await call('GET', '/api/v1/projects', { token: outsider.apiKey })).status).toBe(200);
  });

  it('accepts RS256 and ES256 user access tokens and records the user as creator', async () => {
    for (const alg of ['RS256', 'ES256'] as const) {
      const token = await userToken({ sub: 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA', workspace_id: ws.workspaceId, roles: 'admin' }, { alg });
      const answer = await call('POST', '/api/v1/projects', { token, body: { name: `By ${alg}` } });
      expect(answer.status).toBe(201);
      expect(answer.body.data.createdBy).toBe('usr_01JAAAAAAAAAAAAAAAAAAAAAAA');
    }
  });

  it('refuses access tokens with a wrong issuer, audience, an expired exp or no workspace claim', async () => {
    const claims = { sub: 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA', workspace_id: ws.workspaceId };
    const bad = [
      await userToken(claims, { issuer: 'https://evil.example/' }),
      await userToken(claims, { audience: 'someone-else' }),
      await userToken(claims, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      await userToken({ sub: 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA' }),
    ];
    for (const token of bad) {
      const answer = await call('GET', '/api/v1/projects', { token });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('AUTH_REQUIRED');
    }
  });

  it('takes only access tokens (typ at+jwt, JWT_REQUIRED_TYPE): an ID token of the same IdP is refused', async () => {
    // Prepare: same issuer, audience, key and claims; only the typ header differs
    const claims = { sub: 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA', workspace_id: ws.workspaceId };
    const idToken = await userToken(claims, { typ: 'JWT' });
    const untyped = await userToken(claims, { typ: null });
    const accessToken = await userToken(claims, { typ: 'application/at+jwt' });
    // Act / Assess
    for (const token of [idToken, untyped]) {
      const answer = await call('GET', '/api/v1/projects', { token });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toEqual({ code: 'AUTH_REQUIRED', message: 'Authorization: the access token is invalid or expired' });
    }
    expect((await call('GET', '/api/v1/projects', { token: accessToken })).status).toBe(200);
  });

  it('gives IdP subjects distinct actors: alice and usr_alice are two people, our usr_ ids stay as they are', async () => {
    // Prepare
    const subjects = ['alice', 'usr_alice', 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA'];
    // Act
    const creators: string[] = [];
    for (const sub of subjects) {
      const token = await userToken({ sub, workspace_id: ws.workspaceId, roles: ['viewer', 'admin'] });
      const answer = await call('POST', '/api/v1/projects', { token, body: { name: `By ${sub}` } });
      expect(answer.status).toBe(201);
      creators.push(answer.body.data.createdBy);
    }
    // Assess
    expect(creators).toEqual(['usr_alice', 'usr_~usr_alice', 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA']);
  });

  it('answers WORKSPACE_NOT_ALLOWLISTED for a user of a workspace that is not allowlisted', async () => {
    const outsider = await newWorkspace({ allowlisted: false });
    const token = await userToken({ sub: 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA', workspace_id: outsider.workspaceId });
    expect((await call('GET', '/api/v1/projects', { token })).body.error.code).toBe('WORKSPACE_NOT_ALLOWLISTED');
  });

  it('lets a machine token read but not create projects or environments (FORBIDDEN)', async () => {
    const token = await machineToken(ws.workspaceId);
    expect((await call('GET', '/api/v1/projects', { token })).status).toBe(200);
    const create = await call('POST', '/api/v1/projects', { token, body: { name: 'nope' } });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe('FORBIDDEN');
    const project = await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'For machines' } });
    const env = await call('POST', `/api/v1/projects/${project.body.data.id}/environments`, { token, body: { name: 'x' } });
    expect(env.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses expired and revoked machine tokens', async () => {
    const expired = await machineToken(ws.workspaceId, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const revoked = await machineToken(ws.workspaceId, { revokedAt: new Date().toISOString() });
    expect((await call('GET', '/api/v1/projects', { token: expired })).body.error.message).toMatch(/expired/);
    expect((await call('GET', '/api/v1/projects', { token: revoked })).body.error.message).toMatch(/revoked/);
  });
});

describe('unmatched routes', () => {
  it('answer the generic 404 before any authentication', async () => {
    const cases: [string, string][] = [
      ['GET', '/'],
      ['GET', '/api/v1/nothing-here'],
      ['DELETE', '/api/v1/projects'],
      ['PUT', '/api/v1/projects/by-slug/x'],
      ['GET', '/api/v1/projects/'],
      ['GET', '/api/v2/projects'],
    ];
    for (const [method, path] of cases) {
      const answer = await call(method, path);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body).toEqual({ message: 'Not Found' });
    }
  });
});
