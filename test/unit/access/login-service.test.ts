import { describe, expect, it, vi } from 'vitest';
import { RateLimitedError } from '../../../shared/platform/errors.ts';
import { newId } from '../../../shared/platform/ids.ts';
import {
  checkLoginBudgets,
  LOGINS_PER_MINUTE,
  loginWindow,
  makeLoginService,
  NO_SOURCE_ADDRESS,
  REFUSED_LOGINS_PER_MINUTE,
  type LoginDeps,
} from '../../../shared/access/login-service.ts';
import type { AccessKeyItem } from '../../../shared/access/access-key-records.ts';
import type { LoginSpent, LoginTarget } from '../../../shared/access/login-store.ts';
import { fakeClock, MINUTE, T0, testMacs } from '../support/fakes.ts';

/**
 * The login budgets (decisions.md, "Hardening v1.3"): 10 refused logins per access key, source address and clock
 * minute, 60 successful ones per access key; past either, RATE_LIMITED with Retry-After before any check, and no
 * audit entry. The store is a fake: these check what the service asks of it and when.
 */

const WS = newId('workspace');
const KEY = newId('accessKey');
const ADDRESS = '203.0.113.7';
const record: AccessKeyItem = {
  id: KEY,
  name: 'ci',
  identityId: newId('machineIdentity'),
  tokenPrefix: null,
  createdAt: '',
  createdBy: 'key_x',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  permissions: null,
  allowedCidrs: [],
  auth: { type: 'oidc', issuer: 'https://idp.example.com', audience: 'svc', subject: '*', claims: {} },
  tokenTtlSeconds: 900,
};
const target: LoginTarget = { workspaceId: WS, record, revision: undefined, workspace: { allowlisted: true, accountId: 'acc_1' } };
const body = { accessKeyId: KEY, method: 'oidc' as const, jwt: 'a.b.c' };

function setup(options: { spent?: Partial<LoginSpent>; proof?: boolean; refusalCounted?: boolean; issued?: 'issued' | 'limited' } = {}) {
  const store = {
    findLoginTarget: vi.fn(async () => target),
    workspaceOfAccessKey: vi.fn(async () => WS),
    readLoginAttempt: vi.fn(async () => ({ target, spent: { logins: 0, refusals: 0, ...options.spent } })),
    issueLoginToken: vi.fn(async () => options.issued ?? 'issued'),
    recordLoginRefusal: vi.fn(async () => options.refusalCounted ?? true),
  } satisfies LoginDeps['store'];
  const verifyOidc = vi.fn(async () =>
    options.proof === false
      ? { ok: false as const, reason: 'subject', message: 'login: sub does not match' }
      : { ok: true as const, subject: 'repo:x', issuer: 'https://idp.example.com' },
  );
  const clock = fakeClock(T0 + 15_000);
  const service = makeLoginService({
    store,
    clock,
    macs: testMacs,
    iam: { stsEndpoint: undefined, serverId: undefined },
    replayToSts: vi.fn(),
    verifyOidc,
  });
  const login = (sourceIp: string | undefined = ADDRESS) => service.login(body, { sourceIp }).catch((error: unknown) => error);
  return { store, verifyOidc, login };
}

describe('checkLoginBudgets', () => {
  it('lets a login through while both budgets have room', () => {
    expect(() => checkLoginBudgets({ logins: LOGINS_PER_MINUTE - 1, refusals: REFUSED_LOGINS_PER_MINUTE - 1 }, T0)).not.toThrow();
  });

  it('refuses with RATE_LIMITED and Retry-After to the end of the clock minute once 60 logins of the key are spent', () => {
    const error = (() => {
      try {
        checkLoginBudgets({ logins: 60, refusals: 0 }, T0 + 45_500);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      message: 'login: at most 60 logins per access key per minute',
      headers: { 'Retry-After': '15' },
    });
  });

  it('refuses with RATE_LIMITED once 10 refusals of the key from this address are spent', () => {
    expect(() => checkLoginBudgets({ logins: 0, refusals: 10 }, T0)).toThrow(
      'login: at most 10 refused logins per access key and source address per minute',
    );
  });
});

describe('loginWindow', () => {
  it('counts in the clock minute, per source address; a request without one counts in one shared bucket', () => {
    expect(loginWindow(T0 + 59_999, ADDRESS)).toEqual({ minute: T0 / MINUTE, source: ADDRESS });
    expect(loginWindow(T0 + 60_000, '2001:DB8::1')).toEqual({ minute: T0 / MINUTE + 1, source: '2001:db8::1' });
    expect(loginWindow(T0, undefined)).toEqual({ minute: T0 / MINUTE, source: NO_SOURCE_ADDRESS });
    expect(loginWindow(T0, '')).toEqual({ minute: T0 / MINUTE, source: NO_SOURCE_ADDRESS });
  });
});

describe('a login against its budgets', () => {
  it("reads both budgets with the key, for the caller's address, in one store call", async () => {
    const { store, login } = setup();
    await login();
    expect(store.readLoginAttempt).toHaveBeenCalledExactlyOnceWith(WS, KEY, { minute: T0 / MINUTE, source: ADDRESS });
  });

  it.each([
    ['logins', { logins: 60 }],
    ['refusals', { refusals: 10 }],
  ])('past the %s budget: RATE_LIMITED before any check, nothing counted, nothing audited', async (_, spent) => {
    const { store, verifyOidc, login } = setup({ spent });
    expect(await login()).toMatchObject({ code: 'RATE_LIMITED', headers: { 'Retry-After': '45' } });
    expect(verifyOidc).not.toHaveBeenCalled();
    expect(store.recordLoginRefusal).not.toHaveBeenCalled();
    expect(store.issueLoginToken).not.toHaveBeenCalled();
  });

  it("counts a refusal for the caller's address with its audit entry, and answers its 401", async () => {
    const { store, login } = setup({ proof: false });
    expect(await login()).toMatchObject({ code: 'AUTH_REQUIRED', message: 'login: sub does not match' });
    expect(store.recordLoginRefusal).toHaveBeenCalledExactlyOnceWith(
      WS,
      KEY,
      { minute: T0 / MINUTE, source: ADDRESS },
      REFUSED_LOGINS_PER_MINUTE,
      expect.objectContaining({
        action: 'access_key.login_denied',
        target: KEY,
        metadata: expect.objectContaining({ method: 'oidc', reason: 'subject' }),
      }),
    );
  });

  it("answers RATE_LIMITED, not the refusal, when concurrent refusals spent the address's budget meanwhile", async () => {
    const { login } = setup({ proof: false, refusalCounted: false });
    expect(await login()).toMatchObject({ code: 'RATE_LIMITED', message: /10 refused logins/ });
  });

  it('counts a success in the transaction that issues its token, and answers RATE_LIMITED when that count is spent', async () => {
    const { store, login } = setup();
    expect(await login()).toMatchObject({ accessKeyId: KEY, token: expect.stringMatching(/^st_/) });
    expect(store.issueLoginToken).toHaveBeenCalledWith(
      expect.objectContaining({ window: { minute: T0 / MINUTE, source: ADDRESS }, maxLogins: LOGINS_PER_MINUTE }),
    );
    expect(store.recordLoginRefusal).not.toHaveBeenCalled();
    expect(await setup({ issued: 'limited' }).login()).toMatchObject({ code: 'RATE_LIMITED', message: /60 logins per access key/ });
  });
});
