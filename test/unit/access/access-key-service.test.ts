import { describe, expect, it } from 'vitest';
import { hashToken } from '../../../shared/access/tokens.ts';
import { iso } from '../../../shared/platform/clock.ts';
import type { AccessKeyItem } from '../../../shared/access/access-key-records.ts';
import type { AuditEntry } from '../../../shared/audit/audit-store.ts';
import { makeAccessKeyService, type AccessKeyServiceStore } from '../../../shared/access/access-key-service.ts';
import { caught, fakeClock, principal, T0, testMacs } from '../support/fakes.ts';

const DAY = 86_400_000;

/** An access-key store in memory; a revoke is conditional on the key being active and on its token hash. */
function harness() {
  const keys = new Map<string, AccessKeyItem & { tokenHash: string | undefined; awsSecret?: unknown }>();
  const sealed: { plaintext: string; context: Record<string, string> }[] = [];
  const cipher = {
    encrypt: async (plaintext: string, context: Record<string, string>) => {
      sealed.push({ plaintext, context });
      return { v: 1, alg: 'test', ciphertext: Buffer.from(`sealed:${sealed.length}`).toString('base64') } as never;
    },
  };
  const reached: { id: string; fields: Record<string, unknown> }[] = [];
  const audits: AuditEntry[] = [];
  const revokeWrites: string[] = [];
  const store: AccessKeyServiceStore = {
    async createAccessKey(_ws, record, credential, audit) {
      keys.set(record.id, { ...record, tokenHash: credential?.tokenHash, awsSecret: credential?.awsSecret });
      audits.push(audit);
    },
    accessKeyByIdKeys: () => [],
    getAccessKey: async (_ws, id) => {
      const key = keys.get(id);
      return key && { ...structuredClone(key), revision: undefined };
    },
    expiredLoginKeyStates: async () => [],
    listAccessKeys: async () => ({
      items: [...keys.values()].map(({ tokenHash: _hash, ...record }) => record),
      nextCursor: null,
      hasMore: false,
    }),
    async updateAccessKey(_ws, record, tokenHash, changes, audit) {
      const key = keys.get(record.id);
      if (!key || key.revokedAt || key.tokenHash !== tokenHash) return false;
      Object.assign(key, changes);
      audits.push(audit);
      return true;
    },
    async revokeAccessKey(_ws, id, tokenHash, revokedAt, audit) {
      revokeWrites.push(id);
      const key = keys.get(id);
      if (!key || key.revokedAt || key.tokenHash !== tokenHash) return false;
      key.revokedAt = revokedAt;
      audits.push(audit);
      return true;
    },
    async reachLoginTokens(_ws, id, _now, fields) {
      reached.push({ id, fields });
      return 0;
    },
  };
  const clock = fakeClock();
  return {
    service: makeAccessKeyService({ store, clock, macs: testMacs, cipher }),
    sealed,
    store,
    keys,
    audits,
    revokeWrites,
    reached,
    clock,
    caller: principal({ kind: 'user', actorSub: 'usr_alice' }),
  };
}

describe('access-key service: create', () => {
  it("an aws_sigv4 key: a key pair, its secret in the answer only and sealed under the key's context, no token", async () => {
    // Prepare
    const h = harness();
    // Act
    const created = await h.service.create(h.caller, { name: 'eso', auth: { type: 'aws_sigv4' } });
    // Assess: AWS's forms, the id in the record, the secret shown once
    const { awsAccessKeyId } = created.auth as { awsAccessKeyId: string };
    expect(awsAccessKeyId).toMatch(/^AKSM[A-Z2-7]{16}$/);
    expect(created.awsSecretAccessKey).toMatch(/^[A-Za-z0-9+/]{40}$/);
    expect(created.token).toBeNull();
    expect(created.tokenPrefix).toBeNull();
    expect(created.tokenTtlSeconds).toBeNull();
    // The token item is found by the key id's hash and carries the secret sealed under {workspaceId, accessKeyId}
    const stored = h.keys.get(created.id)!;
    expect(stored.tokenHash).toBe(hashToken(awsAccessKeyId));
    expect(h.sealed).toEqual([
      { plaintext: created.awsSecretAccessKey, context: { workspaceId: h.caller.workspaceId, accessKeyId: created.id } },
    ]);
    expect(stored.awsSecret).toBeDefined();
    // Neither the record nor the audit entry holds the secret
    expect(JSON.stringify(stored)).not.toContain(created.awsSecretAccessKey);
    expect(JSON.stringify(h.audits)).not.toContain(created.awsSecretAccessKey);
    expect(h.audits[0]!.metadata).toMatchObject({ auth: { type: 'aws_sigv4', awsAccessKeyId } });
  });

  it('refuses tokenTtlSeconds for an aws_sigv4 key, and two keys never share a key id', async () => {
    const h = harness();
    await expect(h.service.create(h.caller, { name: 'x', auth: { type: 'aws_sigv4' }, tokenTtlSeconds: 900 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'tokenTtlSeconds: only a key with auth aws_iam or oidc has login tokens',
    });
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++)
      ids.add(
        ((await h.service.create(h.caller, { name: `k${i}`, auth: { type: 'aws_sigv4' } })).auth as { awsAccessKeyId: string })
          .awsAccessKeyId,
      );
    expect(ids.size).toBe(20);
  });

  it('an aws_sigv4 key is no login key: a PATCH and a revoke reach no login tokens', async () => {
    const h = harness();
    const created = await h.service.create(h.caller, { name: 'eso', auth: { type: 'aws_sigv4' } });
    await h.service.update(h.caller, created.id, { allowedCidrs: ['10.0.0.0/8'] });
    await h.service.revoke(h.caller, created.id);
    expect(h.reached).toEqual([]);
  });

  it('the token is in the create answer only: the store keeps its SHA-256, the audit entry names neither', async () => {
    // Prepare
    const h = harness();
    // Act
    const created = await h.service.create(h.caller, { name: 'ci' });
    const token = created.token!;
    // Assess
    expect(token.startsWith('st_')).toBe(true);
    expect(h.keys.get(created.id)!.tokenHash).toBe(hashToken(token));
    expect(JSON.stringify([...h.keys.values()])).not.toContain(token);
    expect(h.audits).toEqual([expect.objectContaining({ action: 'access_key.create', target: created.id, actorSub: 'usr_alice' })]);
    expect(JSON.stringify(h.audits)).not.toContain(token.slice(3, 20));
    expect(created).not.toHaveProperty('tokenHash');
  });

  it('expiresInDays sets the expiry that many days from now; without it the key never expires', async () => {
    const h = harness();
    const expiring = await h.service.create(h.caller, { name: 'ci', expiresInDays: 30 });
    const forever = await h.service.create(h.caller, { name: 'ops' });
    expect(expiring).toMatchObject({ expiresAt: iso(T0 + 30 * DAY), status: 'active' });
    expect(forever).toMatchObject({ expiresAt: null, status: 'active' });
  });
});

describe('access-key service: status', () => {
  it('a key is expired from its expiry instant on, active one millisecond before', async () => {
    const h = harness();
    await h.service.create(h.caller, { name: 'ci', expiresInDays: 1 });
    h.clock.set(T0 + DAY - 1);
    const before = (await h.service.list(h.caller, { limit: 10 })).items[0]!.status;
    h.clock.set(T0 + DAY);
    const at = (await h.service.list(h.caller, { limit: 10 })).items[0]!.status;
    expect([before, at]).toEqual(['active', 'expired']);
  });

  it('revoked wins over expired', async () => {
    const h = harness();
    const { id } = await h.service.create(h.caller, { name: 'ci', expiresInDays: 1 });
    await h.service.revoke(h.caller, id);
    h.clock.set(T0 + 2 * DAY);
    expect((await h.service.list(h.caller, { limit: 10 })).items[0]!.status).toBe('revoked');
  });
});

describe('access-key service: revoke', () => {
  it('revoke is idempotent and audited once; the second revoke makes no write', async () => {
    // Prepare
    const h = harness();
    const { id } = await h.service.create(h.caller, { name: 'ci' });
    // Act
    const first = await h.service.revoke(h.caller, id);
    h.clock.advance(5_000);
    const second = await h.service.revoke(h.caller, id);
    // Assess
    expect(first).toMatchObject({ status: 'revoked', revokedAt: iso(T0) });
    expect(second).toMatchObject({ status: 'revoked', revokedAt: iso(T0) });
    expect(h.revokeWrites).toEqual([id]);
    expect(h.audits.filter((a) => a.action === 'access_key.revoke')).toHaveLength(1);
    expect(first).not.toHaveProperty('tokenHash');
    expect(second).not.toHaveProperty('tokenHash');
  });

  it('a revoke that loses to a concurrent one answers the winner’s revocation time', async () => {
    // Prepare: another revoke lands between this one's read and its write.
    const h = harness();
    const { id } = await h.service.create(h.caller, { name: 'ci' });
    const winner = iso(T0 + 500);
    const revoke = h.store.revokeAccessKey;
    h.store.revokeAccessKey = async (...args) => {
      h.keys.get(id)!.revokedAt = winner;
      return revoke(...args);
    };
    h.clock.advance(1_000);
    // Act
    const answer = await h.service.revoke(h.caller, id);
    // Assess
    expect(answer).toMatchObject({ status: 'revoked', revokedAt: winner });
  });

  it('revoking a key that does not exist is NOT_FOUND', async () => {
    const h = harness();
    expect((await caught(() => h.service.revoke(h.caller, 'ak_missing'))).code).toBe('NOT_FOUND');
    expect(h.revokeWrites).toEqual([]);
  });
});

describe('access-key service: permissions and update', () => {
  const deploy = { projects: ['api'], environments: ['staging'], actions: ['read' as const, 'reveal' as const] };

  it('fills in the defaults of each rule, and gives a key without rules the default rules', async () => {
    const h = harness();
    const scoped = await h.service.create(h.caller, { name: 'deploy', permissions: [deploy], allowedCidrs: ['10.0.0.0/8'] });
    const open = await h.service.create(h.caller, { name: 'ops' });
    expect(scoped.permissions).toEqual([
      { effect: 'allow', projects: ['api'], environments: ['staging'], keys: ['**'], actions: ['read', 'reveal'] },
    ]);
    expect(scoped.allowedCidrs).toEqual(['10.0.0.0/8']);
    expect(open.permissions).toEqual([
      { effect: 'allow', projects: ['*'], environments: ['*'], keys: ['**'], actions: ['read', 'reveal', 'write', 'delete'] },
    ]);
    expect(open.allowedCidrs).toEqual([]);
    expect(h.audits[0]!.metadata).toMatchObject({ permissions: scoped.permissions, allowedCidrs: ['10.0.0.0/8'] });
  });

  it('audits the changed fields with their new values, and writes nothing for a change that changes nothing', async () => {
    const h = harness();
    const key = await h.service.create(h.caller, { name: 'deploy', permissions: [deploy] });
    const updated = await h.service.update(h.caller, key.id, {
      name: 'deploy',
      permissions: [{ ...deploy, actions: ['read'] }],
      allowedCidrs: ['203.0.113.0/24'],
    });
    expect(updated).toMatchObject({
      name: 'deploy',
      allowedCidrs: ['203.0.113.0/24'],
      permissions: [expect.objectContaining({ actions: ['read'] })],
    });
    expect(h.audits.at(-1)).toMatchObject({
      action: 'access_key.update',
      target: key.id,
      metadata: { changed: ['permissions', 'allowedCidrs'], allowedCidrs: ['203.0.113.0/24'] },
    });
    expect(h.audits.at(-1)!.metadata).not.toHaveProperty('name');
    const before = h.audits.length;
    await h.service.update(h.caller, key.id, { name: 'deploy' });
    expect(h.audits).toHaveLength(before);
  });

  it('answers NOT_FOUND for an unknown key and CONFLICT for a revoked one', async () => {
    const h = harness();
    const key = await h.service.create(h.caller, { name: 'ci' });
    await h.service.revoke(h.caller, key.id);
    expect(await caught(() => h.service.update(h.caller, key.id, { name: 'x' }))).toMatchObject({ code: 'CONFLICT' });
    expect(await caught(() => h.service.update(h.caller, 'ak_01J00000000000000000000000', { name: 'x' }))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('access-key service: get', () => {
  it('answers the list item of the key (its status too, never its token or hash); an unknown key is NOT_FOUND', async () => {
    const h = harness();
    const key = await h.service.create(h.caller, { name: 'ci', permissions: [{ projects: ['api'], actions: ['read'] }] });
    await h.service.revoke(h.caller, key.id);
    const listed = (await h.service.list(h.caller, { limit: 10 })).items[0];
    expect(await h.service.get(h.caller, key.id)).toEqual(listed);
    expect(await h.service.get(h.caller, key.id)).not.toHaveProperty('tokenHash');
    expect((await caught(() => h.service.get(h.caller, 'ak_missing'))).code).toBe('NOT_FOUND');
  });
});
