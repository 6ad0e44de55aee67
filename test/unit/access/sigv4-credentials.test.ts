import { describe, expect, it, vi } from 'vitest';
import {
  MAX_KNOWN_KEYS,
  makeSigV4Authenticator,
  SECRET_CACHE_MS,
  SignatureMismatchError,
  UnrecognizedKeyError,
} from '../../../shared/access/sigv4-credentials.ts';
import { hashToken } from '../../../shared/access/tokens.ts';
import type { TokenItem, WorkspaceItem } from '../../../shared/workspaces/workspace-store.ts';

const WS = 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0';
const AKID = 'AKSMABCDEFGHIJKLMNOP';
const SECRET = 's'.repeat(40);
const sealed = { v: 1, alg: 'test', ciphertext: 'c1' } as never;
const workspace: WorkspaceItem = { id: WS, name: 'w', accountId: 'acc_1', allowlisted: true, createdAt: '', updatedAt: '' };
const item: TokenItem = {
  kind: 'machine',
  workspaceId: WS,
  credentialId: 'ak_1',
  actorSub: 'mid_1',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: new Date().toISOString(),
  awsSecret: sealed,
};

function setup(token: Partial<TokenItem> | undefined = {}, ws: Partial<WorkspaceItem> = {}) {
  let now = Date.parse('2026-11-28T06:00:00Z');
  const record = token && { ...item, lastUsedAt: new Date(now).toISOString(), ...token };
  const getToken = vi.fn(async (hash: string) => (hash === hashToken(AKID) ? record : undefined));
  const getCredentialContext = vi.fn(async (hash: string | undefined) => ({
    token: hash === hashToken(AKID) ? record : undefined,
    workspace: { ...workspace, ...ws },
    prefetched: new Map(),
  }));
  const decrypt = vi.fn(async () => SECRET);
  const authenticate = makeSigV4Authenticator({
    store: { getToken, getCredentialContext, touchCredential: async () => undefined },
    clock: { now: () => now },
    cipher: { decrypt },
    macs: async () => {
      throw new Error('no temporary credentials in these tests');
    },
  });
  const signedBy = (accessKeyId = AKID, secret = SECRET) => ({
    accessKeyId,
    signedWith: async (candidate: string) => candidate === secret,
  });
  return { authenticate, signedBy, getToken, getCredentialContext, decrypt, advance: (ms: number) => (now += ms) };
}

describe('SigV4 credentials', () => {
  it("finds the key by its id's hash, checks the signature with its opened secret, and answers the key's identity", async () => {
    const h = setup();
    const { principal } = await h.authenticate(h.signedBy(), undefined, { sourceIp: '127.0.0.1' });
    expect(principal).toMatchObject({ workspaceId: WS, kind: 'machine', actorSub: 'mid_1', credentialId: 'ak_1' });
    expect(h.decrypt).toHaveBeenCalledWith(sealed, { workspaceId: WS, accessKeyId: 'ak_1' });
  });

  it('opens the secret once per 15 minutes and reads the key id once, then one round trip a request', async () => {
    const h = setup();
    for (let i = 0; i < 3; i++) await h.authenticate(h.signedBy());
    expect(h.decrypt).toHaveBeenCalledTimes(1);
    expect(h.getToken).toHaveBeenCalledTimes(1);
    expect(h.getCredentialContext).toHaveBeenCalledTimes(3);
    h.advance(SECRET_CACHE_MS + 1);
    await h.authenticate(h.signedBy());
    expect(h.decrypt).toHaveBeenCalledTimes(2);
  });

  it('refuses an unknown key id, an id of another form, and a bearer token item (no AWS secret): UnrecognizedKey', async () => {
    const h = setup();
    await expect(h.authenticate(h.signedBy('AKSMZZZZZZZZZZZZZZZZ'))).rejects.toBeInstanceOf(UnrecognizedKeyError);
    await expect(h.authenticate(h.signedBy('AKIAABCDEFGHIJKLMNOP'))).rejects.toBeInstanceOf(UnrecognizedKeyError);
    const bearer = setup({ awsSecret: undefined });
    await expect(bearer.authenticate(bearer.signedBy())).rejects.toBeInstanceOf(UnrecognizedKeyError);
  });

  it('refuses a signature made with another secret: SignatureMismatch, never naming the secret', async () => {
    const h = setup();
    const refusal = await h.authenticate(h.signedBy(AKID, 'x'.repeat(40))).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SignatureMismatchError);
    expect(String((refusal as Error).message)).not.toContain(SECRET);
  });

  it('a revoked or expired key is one AWS no longer knows (UnrecognizedKey); outside its networks is FORBIDDEN', async () => {
    const revoked = setup({ revokedAt: '2026-11-01T00:00:00Z' });
    await expect(revoked.authenticate(revoked.signedBy())).rejects.toBeInstanceOf(UnrecognizedKeyError);
    const expired = setup({ expiresAt: '2026-11-01T00:00:00Z' });
    await expect(expired.authenticate(expired.signedBy())).rejects.toBeInstanceOf(UnrecognizedKeyError);
    const fenced = setup({ allowedCidrs: ['10.0.0.0/8'] });
    await expect(fenced.authenticate(fenced.signedBy(), undefined, { sourceIp: '192.0.2.1' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const closed = setup({}, { allowlisted: false });
    await expect(closed.authenticate(closed.signedBy())).rejects.toMatchObject({ code: 'WORKSPACE_NOT_ALLOWLISTED' });
  });

  it(`remembers at most ${MAX_KNOWN_KEYS} keys a container: past it, the one remembered longest ago is read again`, async () => {
    // Every key id of the AWS form is a key here, with its own item.
    const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    const keyIdOf = (n: number) =>
      `AKSM${[...n.toString(32).padStart(16, '0')].map((digit) => BASE32[Number.parseInt(digit, 32)]).join('')}`;
    const recordOf = () => ({ ...item, lastUsedAt: new Date(Date.parse('2026-11-28T06:00:00Z')).toISOString() });
    const getToken = vi.fn(async () => recordOf());
    const authenticate = makeSigV4Authenticator({
      store: {
        getToken,
        getCredentialContext: async () => ({ token: recordOf(), workspace, prefetched: new Map() }),
        touchCredential: async () => undefined,
      },
      clock: { now: () => Date.parse('2026-11-28T06:00:00Z') },
      cipher: { decrypt: async () => SECRET },
      macs: async () => {
        throw new Error('no temporary credentials in these tests');
      },
    });
    const sign = (accessKeyId: string) => authenticate({ accessKeyId, signedWith: async (secret) => secret === SECRET });
    const ids = Array.from({ length: MAX_KNOWN_KEYS + 1 }, (_, n) => keyIdOf(n));
    await sign(ids[0]!);
    await sign(ids[0]!);
    expect(getToken).toHaveBeenCalledTimes(1);
    for (const id of ids.slice(1)) await sign(id);
    expect(getToken).toHaveBeenCalledTimes(MAX_KNOWN_KEYS + 1);
    // The first key was dropped for the last one: read again. The last is still known.
    await sign(ids[0]!);
    expect(getToken).toHaveBeenCalledTimes(MAX_KNOWN_KEYS + 2);
    await sign(ids.at(-1)!);
    expect(getToken).toHaveBeenCalledTimes(MAX_KNOWN_KEYS + 2);
  });
});
