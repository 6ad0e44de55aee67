import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../../shared/audit/audit-actions.ts';
import { auditEntry, systemAuditEntry } from '../../../shared/audit/audit-entry.ts';
import type { Principal } from '../../../shared/platform/principal.ts';
import { isId } from '../../../shared/platform/ids.ts';
import { machineAuthority } from '../../../shared/access/permissions.ts';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe('audit entries', () => {
  it('by a principal name its subject, account and credential kind', () => {
    // Prepare
    const principal: Principal = {
      workspaceId: 'ws_1',
      accountId: 'acc_1',
      kind: 'machine',
      actorSub: 'mid_1',
      credentialId: 'ak_1',
      authority: machineAuthority(undefined),
    };

    // Act
    const entry = auditEntry(principal, 'secret.reveal', 'sec_1', { key: 'K' }, NOW);

    // Assess
    expect(entry).toEqual({
      id: entry.id,
      action: 'secret.reveal',
      actorSub: 'mid_1',
      target: 'sec_1',
      metadata: { key: 'K', credentialKind: 'machine' },
      createdAt: '2026-01-02T03:04:05.678Z',
      accountId: 'acc_1',
    });
    expect(isId('audit', entry.id)).toBe(true);
  });

  it('by the service itself have the system actor, the account, and no credential kind', () => {
    // Act
    const entry = systemAuditEntry('acc_1', 'webhook_endpoint.disabled', 'we_1', { url: 'https://example.com/hook' }, NOW);

    // Assess
    expect(entry).toEqual({
      id: entry.id,
      action: 'webhook_endpoint.disabled',
      actorSub: SYSTEM_ACTOR,
      target: 'we_1',
      metadata: { url: 'https://example.com/hook' },
      createdAt: '2026-01-02T03:04:05.678Z',
      accountId: 'acc_1',
    });
    expect(SYSTEM_ACTOR).toBe('system');
    expect(isId('audit', entry.id)).toBe(true);
    expect(entry.id < systemAuditEntry('acc_1', 'webhook_endpoint.disabled', 'we_1', {}, NOW + 1).id).toBe(true);
  });
});
