import { describe, expect, it, vi } from 'vitest';
import { makeAuthenticator } from '../../../shared/access/authenticate.ts';
import { awsSessionCredentials } from '../../../shared/access/aws-session.ts';
import { makeSigV4Authenticator, UnrecognizedKeyError } from '../../../shared/access/sigv4-credentials.ts';
import { tokenUseRefusal } from '../../../shared/access/token-use.ts';
import { hashToken, issueToken } from '../../../shared/access/tokens.ts';
import type { TokenItem, WorkspaceItem } from '../../../shared/workspaces/workspace-store.ts';
import { TEST_MACS, testMacs } from '../support/fakes.ts';

/**
 * A login's token works one way only (decisions.md, "Hardening v1.4"): the session token of temporary AWS
 * credentials is no bearer token, and a login token of the default format is no session token.
 */

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';
const NOW = Date.parse('2026-11-28T06:00:00Z');
const workspace: WorkspaceItem = { id: WS, name: 'w', accountId: 'acc_1', allowlisted: true, createdAt: '', updatedAt: '' };
const loginItem: TokenItem = {
  kind: 'machine',
  workspaceId: WS,
  credentialId: 'ak_1',
  actorSub: 'mid_1',
  expiresAt: new Date(NOW + 900_000).toISOString(),
  revokedAt: null,
  lastUsedAt: new Date(NOW).toISOString(),
  keyRevision: 0,
};

/** Both authenticators over one stored token item, the token issued for it. */
function setup(item: TokenItem) {
  const token = issueToken(TEST_MACS, 'machine', WS);
  const getCredentialContext = vi.fn(async (hash: string | undefined) => ({
    token: hash === hashToken(token) ? item : undefined,
    workspace,
    prefetched: new Map(),
  }));
  const deps = { store: { getCredentialContext, touchCredential: async () => undefined }, clock: { now: () => NOW }, macs: testMacs };
  const bearer = makeAuthenticator(deps);
  const sigv4 = makeSigV4Authenticator({
    ...deps,
    store: { ...deps.store, getToken: async () => undefined },
    cipher: { decrypt: async () => 'unused' },
  });
  // The key pair only the service derives: a test with its MAC keys signs as a client holding the pair would.
  const pair = awsSessionCredentials(TEST_MACS, token);
  const signed = () =>
    sigv4({ accessKeyId: pair.accessKeyId, sessionToken: token, signedWith: async (secret) => secret === pair.secretAccessKey });
  return { token, bearer: () => bearer(`Bearer ${token}`), signed };
}

describe('tokenUseRefusal', () => {
  it('admits each form of a login token its own way only, and other tokens as bearer tokens only', () => {
    const aws = { keyRevision: 0, format: 'aws' } as const;
    const token = { keyRevision: 3, format: 'token' } as const;
    const legacy = { keyRevision: 0 };
    const own = {};
    expect([aws, token, legacy, own].map((record) => tokenUseRefusal(record, 'bearer') === undefined)).toEqual([false, true, false, true]);
    expect([aws, token, legacy, own].map((record) => tokenUseRefusal(record, 'aws_session') === undefined)).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});

describe('a login token presented the wrong way', () => {
  it('the session token of AWS credentials as a bearer token is AUTH_REQUIRED, naming the rule, never the token', async () => {
    const h = setup({ ...loginItem, format: 'aws' });
    const refusal = await h.bearer().catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'AUTH_REQUIRED', status: 401 });
    expect((refusal as Error).message).toContain('X-Amz-Security-Token');
    expect((refusal as Error).message).not.toContain(h.token);
    // The same token signs as the session token of its credentials.
    await expect(h.signed()).resolves.toMatchObject({ principal: { workspaceId: WS, credentialId: 'ak_1' } });
  });

  it('a login token of the default format is no session token, even signed with the pair derived from it', async () => {
    const h = setup({ ...loginItem, format: 'token' });
    await expect(h.signed()).rejects.toBeInstanceOf(UnrecognizedKeyError);
    await expect(h.bearer()).resolves.toMatchObject({ principal: { workspaceId: WS, credentialId: 'ak_1' } });
  });

  it('a login token issued before the mark is refused as a bearer token and still signs as a session token', async () => {
    const h = setup(loginItem);
    await expect(h.bearer()).rejects.toMatchObject({ code: 'AUTH_REQUIRED', message: expect.stringContaining('log in again') });
    await expect(h.signed()).resolves.toMatchObject({ principal: { workspaceId: WS } });
  });

  it("an access key's own st_ token stays a bearer token and is no session token", async () => {
    const { keyRevision: _none, ...own } = loginItem;
    const h = setup({ ...own, expiresAt: null });
    await expect(h.bearer()).resolves.toMatchObject({ principal: { workspaceId: WS } });
    await expect(h.signed()).rejects.toBeInstanceOf(UnrecognizedKeyError);
  });
});
