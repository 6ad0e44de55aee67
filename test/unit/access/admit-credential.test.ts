import { describe, expect, it, vi } from 'vitest';
import { admitCredential, checkLoginKey, LAST_USED_GRANULARITY_MS } from '../../../shared/access/admit-credential.ts';
import { API_KEY_AUTHORITY } from '../../../shared/access/permissions.ts';
import type { TokenItem, WorkspaceItem } from '../../../shared/workspaces/index.ts';
import { fakeClock, T0 } from '../support/fakes.ts';
import { AuthRequiredError } from '../../../shared/platform/errors.ts';

/**
 * The step every token-item credential passes once it is known to be the caller's (shared/access/admit-credential.ts):
 * revocation, expiry, the login key's state, the key's networks, the workspace's allow-list, then the principal, with
 * `lastUsedAt` written at most once a minute. Over a fake store and clock.
 */

const iso = (ms: number) => new Date(ms).toISOString();

const tokenItem = (overrides: Partial<TokenItem> = {}): TokenItem => ({
  kind: 'api_key',
  workspaceId: 'ws_1',
  credentialId: 'key_1',
  actorSub: 'key_1',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  ...overrides,
});

const workspaceItem = (overrides: Partial<WorkspaceItem> = {}): WorkspaceItem => ({
  id: 'ws_1',
  name: 'ws',
  accountId: 'acc_1',
  allowlisted: true,
  createdAt: iso(T0),
  updatedAt: iso(T0),
  ...overrides,
});

/** Admits `record` at T0 (the clock) from `sourceIp`; answers what admission answered or the error it threw. */
function admission(options: { touch?: () => Promise<void> } = {}) {
  const touchCredential = vi.fn(options.touch ?? (async () => undefined));
  const onTouchFailure = vi.fn();
  const deps = { store: { touchCredential }, clock: fakeClock(T0), onTouchFailure };
  // A workspace given as undefined is a missing workspace item; none given is the allow-listed one.
  const admit = (record: TokenItem, given: { workspace?: WorkspaceItem | undefined; sourceIp?: string } = {}) =>
    admitCredential(
      deps,
      { tokenHash: 'hash_1', record, workspace: 'workspace' in given ? given.workspace : workspaceItem(), prefetched: {} as never },
      { sourceIp: given.sourceIp ?? '203.0.113.7' },
    );
  const refusal = (record: TokenItem, given?: { workspace?: WorkspaceItem | undefined; sourceIp?: string }) =>
    admit(record, given).then(
      () => 'admitted',
      (error: { code: string; message: string }) => `${error.code}: ${error.message}`,
    );
  return { admit, refusal, touchCredential, onTouchFailure };
}

describe('admitCredential refuses', () => {
  it('a revoked token, and one expired at or before now (AUTH_REQUIRED)', async () => {
    // Prepare
    const { refusal } = admission();

    // Act
    const revoked = await refusal(tokenItem({ revokedAt: iso(T0 - 1) }));
    const expiredNow = await refusal(tokenItem({ expiresAt: iso(T0) }));
    const expiring = await refusal(tokenItem({ expiresAt: iso(T0 + 1) }));

    // Assess
    expect(revoked).toBe('AUTH_REQUIRED: Authorization: the token has been revoked');
    expect(expiredNow).toBe('AUTH_REQUIRED: Authorization: the token has expired');
    expect(expiring).toBe('admitted');
  });

  it("a login's token whose key the workspace item says is revoked or changed since", async () => {
    // Prepare
    const { refusal } = admission();
    const login = tokenItem({ kind: 'machine', keyRevision: 3 });

    // Act
    const revoked = await refusal(login, { workspace: workspaceItem({ loginKeys: { key_1: -1 } }) });
    const changed = await refusal(login, { workspace: workspaceItem({ loginKeys: { key_1: 4 } }) });
    const same = await refusal(login, { workspace: workspaceItem({ loginKeys: { key_1: 3 } }) });
    const otherKeyChanged = await refusal(login, { workspace: workspaceItem({ loginKeys: { key_2: 9 } }) });

    // Assess
    expect(revoked).toBe('AUTH_REQUIRED: Authorization: the token has been revoked');
    expect(changed).toMatch(/^AUTH_REQUIRED: Authorization: the access key changed after this token was issued/);
    expect([same, otherKeyChanged]).toEqual(['admitted', 'admitted']);
  });

  it("a caller outside the key's networks (FORBIDDEN), before its use is recorded; an empty list is anywhere", async () => {
    // Prepare
    const { refusal, touchCredential } = admission();
    const limited = tokenItem({ kind: 'machine', allowedCidrs: ['10.0.0.0/8'] });

    // Act
    const outside = await refusal(limited, { sourceIp: '203.0.113.7' });
    const noAddress = await refusal(limited, { sourceIp: '' });
    const inside = await refusal(limited, { sourceIp: '10.1.2.3' });
    const unlimited = await refusal(tokenItem({ allowedCidrs: [] }), { sourceIp: '203.0.113.7' });

    // Assess
    expect(outside).toBe('FORBIDDEN: Authorization: this access key may not be used from this address (allowedCidrs)');
    expect(noAddress).toMatch(/^FORBIDDEN/);
    expect([inside, unlimited]).toEqual(['admitted', 'admitted']);
    expect(touchCredential).toHaveBeenCalledTimes(2);
  });

  it('a credential of a workspace not allow-listed, or whose workspace item is missing', async () => {
    // Prepare
    const { refusal } = admission();

    // Act
    const notListed = await refusal(tokenItem(), { workspace: workspaceItem({ allowlisted: false }) });
    const missing = await refusal(tokenItem(), { workspace: undefined });

    // Assess
    expect(notListed).toMatch(/^WORKSPACE_NOT_ALLOWLISTED/);
    expect(missing).toMatch(/^WORKSPACE_NOT_ALLOWLISTED/);
  });
});

describe('admitCredential admits', () => {
  it("an API key with the admin authority and a machine token with its own, in the workspace's account", async () => {
    // Prepare
    const { admit } = admission();

    // Act
    const apiKey = await admit(tokenItem());
    const machine = await admit(tokenItem({ kind: 'machine', credentialId: 'ak_1', actorSub: 'machine:ak_1' }));

    // Assess
    expect(apiKey.principal).toEqual({
      workspaceId: 'ws_1',
      accountId: 'acc_1',
      kind: 'api_key',
      actorSub: 'key_1',
      credentialId: 'key_1',
      authority: API_KEY_AUTHORITY,
    });
    expect(machine.principal).toMatchObject({ kind: 'machine', actorSub: 'machine:ak_1', credentialId: 'ak_1' });
    expect(machine.principal.authority.admin).toBe(false);
  });

  it('recording lastUsedAt only when the last one is a minute old or more, with the condition a minute back', async () => {
    // Prepare
    const { admit, touchCredential } = admission();

    // Act
    const never = await admit(tokenItem());
    const recent = await admit(tokenItem({ lastUsedAt: iso(T0 - LAST_USED_GRANULARITY_MS + 1) }));
    const minuteOld = await admit(tokenItem({ lastUsedAt: iso(T0 - LAST_USED_GRANULARITY_MS) }));

    // Assess
    expect(never.pending).toBeInstanceOf(Promise);
    expect(recent.pending).toBeUndefined();
    expect(minuteOld.pending).toBeInstanceOf(Promise);
    expect(touchCredential).toHaveBeenCalledTimes(2);
    expect(touchCredential).toHaveBeenCalledWith(expect.objectContaining({ credentialId: 'key_1' }), 'hash_1', iso(T0), iso(T0 - 60_000));
  });

  it('and reports a failed lastUsedAt write to onTouchFailure without failing the request', async () => {
    // Prepare
    const failure = new Error('throttled');
    const { admit, onTouchFailure } = admission({ touch: async () => Promise.reject(failure) });

    // Act
    const admitted = await admit(tokenItem());
    await admitted.pending;

    // Assess
    expect(admitted.principal.workspaceId).toBe('ws_1');
    expect(onTouchFailure).toHaveBeenCalledWith(failure);
  });
});

/**
 * A login token against its key's state on the workspace item (decisions.md, "Workload identity": revoking or
 * updating the key applies to its live tokens on their next request), whether or not the change has reached the
 * token's own item yet.
 */
describe('checkLoginKey', () => {
  const refusal = (tokenRevision: number, state: number | undefined) => {
    try {
      checkLoginKey(tokenRevision, state);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(AuthRequiredError);
      return (error as Error).message;
    }
  };

  it('lets a token through when its key was never changed, or not since its login', () => {
    expect(refusal(0, undefined)).toBeUndefined();
    expect(refusal(3, 3)).toBeUndefined();
    expect(refusal(4, 3)).toBeUndefined();
  });

  it('refuses every token of a revoked key (a state below 0)', () => {
    expect(refusal(0, -1_800_000_000)).toMatch(/revoked/);
    expect(refusal(7, -1)).toMatch(/revoked/);
  });

  it('refuses a token issued before the key last changed, so the workload logs in again under the new rules', () => {
    expect(refusal(2, 3)).toMatch(/changed after this token was issued; log in again/);
  });
});
