import { describe, expect, it } from 'vitest';
import type { AuditAction } from '../../../../shared/audit/audit-actions.ts';
import { eventFromAudit, type AuditRecord } from '../../../../shared/webhooks/deliveries/events.ts';

const CR = 'cr_01JABCDEFGHJKMNPQRSTVWXYZ0';
const audit = (action: AuditAction, metadata: Record<string, unknown> = {}): AuditRecord => ({
  id: 'aud_01JABCDEFGHJKMNPQRSTVWXYZ0',
  action,
  actorSub: 'usr_alice',
  target: CR,
  metadata: { environmentId: 'env_1', projectId: 'proj_1', title: 'Rotate', keys: ['A', 'B'], credentialKind: 'user', ...metadata },
  createdAt: '2026-01-01T00:00:00.123Z',
  workspaceId: 'ws_1',
  accountId: 'acc_1',
});
const data = { changeRequestId: CR, environmentId: 'env_1', projectId: 'proj_1', title: 'Rotate', keys: ['A', 'B'] };

describe('change request events (decisions.md v1.4)', () => {
  it('turn open, merge and close into opened, merged and closed, naming the request, where it is, its title and keys', () => {
    expect(eventFromAudit(audit('change_request.open'))).toMatchObject({ type: 'service.change_request.opened', data });
    expect(eventFromAudit(audit('change_request.merge'))).toMatchObject({ type: 'service.change_request.merged', data });
    expect(eventFromAudit(audit('change_request.close'))).toMatchObject({ type: 'service.change_request.closed', data });
    expect(eventFromAudit(audit('change_request.open'))!.data).toEqual(data);
  });

  it('fire approved only for the review that approved the request: a reject or an approval short of enough fires nothing', () => {
    expect(eventFromAudit(audit('change_request.review', { decision: 'approve', status: 'approved' }))).toMatchObject({
      type: 'service.change_request.approved',
      data,
    });
    expect(eventFromAudit(audit('change_request.review', { decision: 'approve', status: 'open' }))).toBeUndefined();
    expect(eventFromAudit(audit('change_request.review', { decision: 'reject', status: 'rejected' }))).toBeUndefined();
  });
});
