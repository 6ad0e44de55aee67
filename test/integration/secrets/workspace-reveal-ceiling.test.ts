import { describe, expect, it } from 'vitest';
import { auditEntry } from '../../../shared/audit/audit-entry.ts';
import { machineAuthority } from '../../../shared/access/permissions.ts';
import { localStore, newWorkspace } from '../../support/api.ts';

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
