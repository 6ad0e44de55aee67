import { describe, expect, it, vi } from 'vitest';
import {
  FetchError,
  JwksNotAvailableInCacheError,
  JwksValidationError,
  JwtExpiredError,
  JwtInvalidSignatureError,
  KidNotFoundInJwksError,
  NonRetryableFetchError,
  WaitPeriodNotYetEndedJwkError,
} from 'aws-jwt-verify/error';
import { makeAuthenticator, type AuthenticatorDeps } from '../../../shared/access/authenticate.ts';
import { hashToken, issueToken } from '../../../shared/access/tokens.ts';
import type { TokenItem, WorkspaceItem } from '../../../shared/workspaces/workspace-store.ts';
import { TEST_MACS, testMacs } from '../support/fakes.ts';
import { roleAuthority } from '../../../shared/access/permissions.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';
const NOW = Date.parse('2026-06-01T00:00:00Z');
const workspace: WorkspaceItem = { id: WS, name: 'w', accountId: 'acc_1', allowlisted: true, createdAt: '', updatedAt: '' };
const record: TokenItem = {
  kind: 'api_key',
  workspaceId: WS,
  credentialId: 'key_1',
  actorSub: 'key_1',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
};

function setup(token: Partial<TokenItem> | undefined, ws: Partial<WorkspaceItem> | null = {}, jwtClaims?: Record<string, unknown>) {
  const getCredentialContext = vi.fn(async (tokenHash: string | undefined) => ({
    token: tokenHash && token ? { ...record, ...token } : undefined,
    workspace: ws ? { ...workspace, ...ws } : undefined,
    prefetched: new Map(),
  }));
  const verify = vi.fn(async () => {
    if (!jwtClaims) throw new Error('bad signature with claims {"sub":"leak"}');
    return jwtClaims;
  });
  const touchCredential = vi.fn(async () => undefined);
  const deps: AuthenticatorDeps = {
    store: { getCredentialContext, touchCredential },
    clock: { now: () => NOW },
    macs: testMacs,
    jwt: { verify, workspaceClaim: 'workspace_id', roleClaim: 'roles', defaultRole: 'viewer' },
  };
  const authenticator = makeAuthenticator(deps);
  const authenticate = async (header: string | undefined) => (await authenticator(header)).principal;
  return { authenticator, authenticate, getCredentialContext, verify, touchCredential };
}

describe('authenticate', () => {
  it("looks up an API key by hash together with its workspace and the route's prefetch keys, in one store call", async () => {
    const token = issueToken(TEST_MACS, 'apiKey', WS);
    const { authenticator, getCredentialContext } = setup({});
    const extra = [{ PK: 'X', SK: 'Y' }];
    const prefetch = vi.fn(() => extra);
    await expect(authenticator(`Bearer ${token}`, prefetch)).resolves.toMatchObject({
      principal: { workspaceId: WS, accountId: 'acc_1', kind: 'api_key', actorSub: 'key_1', credentialId: 'key_1' },
    });
    expect(prefetch).toHaveBeenCalledWith(WS);
    // An API key's state is its own token item: the workspace may be read as the route reads its items.
    expect(getCredentialContext).toHaveBeenCalledExactlyOnceWith(hashToken(token), WS, extra, { consistentWorkspace: false });
  });

  it("asks for the workspace item strongly consistent with an st_ token: a login key's state is on it", async () => {
    // Prepare
    const token = issueToken(TEST_MACS, 'machine', WS);
    const { authenticator, getCredentialContext } = setup({ kind: 'machine', keyRevision: 0, format: 'token' });
    const extra = [{ PK: 'X', SK: 'Y', eventual: true as const }];
    // Act
    await authenticator(`Bearer ${token}`, () => extra);
    // Assess
    expect(getCredentialContext).toHaveBeenCalledExactlyOnceWith(hashToken(token), WS, extra, { consistentWorkspace: true });
  });

  it("refuses a caller the route's access does not admit (FORBIDDEN), after the credential is known", async () => {
    // Prepare: an access key's st_ token (no admin) and an API key (admin)
    const machine = `Bearer ${issueToken(TEST_MACS, 'machine', WS)}`;
    const apiKey = `Bearer ${issueToken(TEST_MACS, 'apiKey', WS)}`;
    const adminRoute = { routeKey: 'GET /v1/audit', access: 'admin' as const };
    const workspaceRoute = { routeKey: 'GET /v1/projects', access: 'workspace' as const };
    // Act and assess
    await expect(
      setup({ kind: 'machine', keyRevision: 0, format: 'token' }).authenticator(machine, undefined, {}, adminRoute),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: 'This credential may not call GET /v1/audit: it needs an API key or a person with the admin role',
    });
    await expect(
      setup({ kind: 'machine', keyRevision: 0, format: 'token' }).authenticator(machine, undefined, {}, workspaceRoute),
    ).resolves.toMatchObject({
      principal: { kind: 'machine' },
    });
    await expect(setup({}).authenticator(apiKey, undefined, {}, adminRoute)).resolves.toMatchObject({ principal: { kind: 'api_key' } });
  });

  it.each([
    [undefined, 'Authorization: a Bearer token is required'],
    ['', 'Authorization: a Bearer token is required'],
    ['Basic abc', 'Authorization: a Bearer token is required'],
    ['Bearer', 'Authorization: a Bearer token is required'],
    ['Bearer not-a-token', 'Authorization: the token is not valid'],
  ])('refuses header %j', async (header, message) => {
    const { authenticate, getCredentialContext } = setup({});
    await expect(authenticate(header)).rejects.toMatchObject({ code: 'AUTH_REQUIRED', status: 401, message });
    expect(getCredentialContext).not.toHaveBeenCalled();
  });

  it("refuses a bearer token whose item is an AWS key pair's (those authenticate SigV4 signatures only)", async () => {
    const token = `Bearer ${issueToken(TEST_MACS, 'machine', WS)}`;
    const awsSecret = { v: 1, alg: 'test', ciphertext: 'x' } as never;
    await expect(setup({ kind: 'machine', awsSecret }).authenticate(token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    await expect(setup({ kind: 'machine' }).authenticate(token)).resolves.toMatchObject({ kind: 'machine' });
  });

  it('refuses unknown, revoked, expired and cross-workspace tokens', async () => {
    const token = `Bearer ${issueToken(TEST_MACS, 'machine', WS)}`;
    await expect(setup(undefined).authenticate(token)).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    await expect(setup({ revokedAt: '2026-01-01T00:00:00Z' }).authenticate(token)).rejects.toMatchObject({ message: /revoked/ });
    await expect(setup({ expiresAt: new Date(NOW).toISOString() }).authenticate(token)).rejects.toMatchObject({ message: /expired/ });
    await expect(setup({ expiresAt: new Date(NOW + 1).toISOString(), kind: 'machine' }).authenticate(token)).resolves.toMatchObject({
      kind: 'machine',
    });
    await expect(setup({ workspaceId: 'ws_01JZZZZZZZZZZZZZZZZZZZZZZZ' }).authenticate(token)).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
    });
  });

  it('answers WORKSPACE_NOT_ALLOWLISTED for a workspace that is missing or off the allowlist', async () => {
    const token = `Bearer ${issueToken(TEST_MACS, 'apiKey', WS)}`;
    await expect(setup({}, { allowlisted: false }).authenticate(token)).rejects.toMatchObject({
      code: 'WORKSPACE_NOT_ALLOWLISTED',
      status: 403,
    });
    await expect(setup({}, null).authenticate(token)).rejects.toMatchObject({ code: 'WORKSPACE_NOT_ALLOWLISTED' });
  });

  it('maps a verified JWT to a usr_ principal of its workspace claim', async () => {
    const { authenticate, getCredentialContext } = setup({}, {}, { sub: 'abc123', workspace_id: WS });
    await expect(authenticate('Bearer a.b.c')).resolves.toEqual({
      workspaceId: WS,
      accountId: 'acc_1',
      kind: 'user',
      actorSub: 'usr_abc123',
      credentialId: 'usr_abc123',
      // No role claim: the default role (JWT_DEFAULT_ROLE, viewer here).
      authority: roleAuthority('viewer'),
    });
    expect(getCredentialContext).toHaveBeenCalledWith(undefined, WS, []);
    // An IdP subject that merely starts with usr_ is not one of our ids: it may not become the actor of subject `x`.
    await expect(setup({}, {}, { sub: 'usr_x', workspace_id: WS }).authenticate('Bearer a.b.c')).resolves.toMatchObject({
      actorSub: 'usr_~usr_x',
    });
  });

  it('refuses a JWT that fails verification without repeating the verifier message', async () => {
    const error = await setup({})
      .authenticate('Bearer a.b.c')
      .catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'AUTH_REQUIRED', message: 'Authorization: the access token is invalid or expired' });
    expect(String((error as Error).message)).not.toContain('leak');
  });

  it("answers SERVICE_UNAVAILABLE when the IdP's keys cannot be had, AUTH_REQUIRED when the token is at fault", async () => {
    // Prepare: the verifier's own error classes, as aws-jwt-verify throws them
    const idpDown = [
      new FetchError('https://idp/jwks', 'connect ECONNREFUSED'),
      new NonRetryableFetchError('https://idp/jwks', 'Status code is 500, expected 200'),
      new FetchError('https://idp/jwks', 'Response time-out (after 3000 ms.)'),
      new JwksValidationError('JWKS could not be parsed as JSON'),
      new JwksNotAvailableInCacheError('JWKS for uri https://idp/jwks not yet available in cache'),
    ];
    const tokenBad = [
      new KidNotFoundInJwksError('JWK for kid "x" not found in the JWKS'),
      new WaitPeriodNotYetEndedJwkError('Not allowed to fetch JWKS yet'),
      new JwtExpiredError('Token expired', 1),
      new JwtInvalidSignatureError('Invalid signature'),
      new Error('wrong token type'),
    ];
    const outcome = async (error: Error) => {
      const { authenticator, verify, getCredentialContext } = setup({});
      verify.mockRejectedValueOnce(error);
      const refusal = await authenticator('Bearer a.b.c').catch((e: unknown) => e);
      expect(getCredentialContext).not.toHaveBeenCalled();
      return refusal;
    };
    // Act / Assess
    for (const error of idpDown) {
      expect(await outcome(error), error.message).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
        headers: { 'Retry-After': '1' },
      });
    }
    for (const error of tokenBad) expect(await outcome(error), error.message).toMatchObject({ code: 'AUTH_REQUIRED', status: 401 });
  });

  it('refuses a JWT without a valid workspace claim', async () => {
    await expect(setup({}, {}, { sub: 'x' }).authenticate('Bearer a.b.c')).rejects.toMatchObject({ message: /workspace_id claim/ });
    await expect(setup({}, {}, { sub: 'x', workspace_id: 'acme' }).authenticate('Bearer a.b.c')).rejects.toMatchObject({
      code: 'AUTH_REQUIRED',
    });
  });

  it("records a machine token's use at most once a minute, and never blocks on or fails for it", async () => {
    const token = `Bearer ${issueToken(TEST_MACS, 'machine', WS)}`;
    const machine = { kind: 'machine' as const, credentialId: 'ak_1', actorSub: 'mid_1' };
    const fresh = setup({ ...machine, lastUsedAt: new Date(NOW - 59_000).toISOString() });
    expect((await fresh.authenticator(token)).pending).toBeUndefined();
    expect(fresh.touchCredential).not.toHaveBeenCalled();
    const stale = setup({ ...machine, lastUsedAt: new Date(NOW - 60_000).toISOString() });
    await (await stale.authenticator(token)).pending;
    expect(stale.touchCredential).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'machine', workspaceId: WS, credentialId: 'ak_1' }),
      expect.any(String),
      new Date(NOW).toISOString(),
      new Date(NOW - 60_000).toISOString(),
    );
    const never = setup({ ...machine });
    never.touchCredential.mockRejectedValueOnce(new Error('throttled'));
    await expect((await never.authenticator(token)).pending).resolves.toBeUndefined();
    // Workspace API keys get lastUsedAt too (issue 11), by the same once-a-minute rule.
    const apiKey = setup({});
    await (await apiKey.authenticator(`Bearer ${issueToken(TEST_MACS, 'apiKey', WS)}`)).pending;
    expect(apiKey.touchCredential).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'api_key', credentialId: 'key_1' }),
      expect.any(String),
      expect.any(String),
      expect.any(String),
    );
  });
});
