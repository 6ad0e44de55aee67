import { describe, expect, it } from 'vitest';
import type { AuditAction } from '../../../../shared/audit/audit-actions.ts';
import { deliveryIdFor, eventFromAudit, type AuditRecord } from '../../../../shared/webhooks/deliveries/events.ts';
import { isId } from '../../../../shared/platform/ids.ts';

const audit = (action: AuditAction, metadata: Record<string, unknown> = {}): AuditRecord => ({
  id: 'aud_01JABCDEFGHJKMNPQRSTVWXYZ0',
  action,
  actorSub: 'mid_01JABCDEFGHJKMNPQRSTVWXYZ0',
  target: 'sec_01JABCDEFGHJKMNPQRSTVWXYZ0',
  metadata: { key: 'K', version: 3, projectId: 'proj_1', environmentId: 'env_1', credentialKind: 'machine', ...metadata },
  createdAt: '2026-01-01T00:00:00.123Z',
  workspaceId: 'ws_1',
  accountId: 'acc_1',
});

describe('events from audit records', () => {
  it('turn secret actions into events naming the secret, where it lives and who acted, never a value', () => {
    expect(eventFromAudit(audit('secret.reveal'))).toEqual({
      id: 'evt_01JABCDEFGHJKMNPQRSTVWXYZ0',
      type: 'service.secret.reveal',
      account: 'acc_1',
      occurredAt: '2026-01-01T00:00:00.123Z',
      data: {
        secretId: 'sec_01JABCDEFGHJKMNPQRSTVWXYZ0',
        key: 'K',
        version: 3,
        projectId: 'proj_1',
        environmentId: 'env_1',
        actorSub: 'mid_01JABCDEFGHJKMNPQRSTVWXYZ0',
      },
    });
    expect(eventFromAudit(audit('secret.delete'))!.data).not.toHaveProperty('version');
    expect(eventFromAudit(audit('secret.create'))!.type).toBe('service.secret.create');
    expect(eventFromAudit(audit('secret.rotate'))!.type).toBe('service.secret.rotate');
  });

  it('turn a failed rotation into service.secret.rotation_failed with the step and the error; the other rotation actions into none', () => {
    const failed = eventFromAudit(audit('secret.rotation_failed', { step: 'testSecret', error: 'Error: could not connect' }));
    expect(failed).toMatchObject({
      type: 'service.secret.rotation_failed',
      data: {
        secretId: 'sec_01JABCDEFGHJKMNPQRSTVWXYZ0',
        key: 'K',
        projectId: 'proj_1',
        environmentId: 'env_1',
        step: 'testSecret',
        error: 'Error: could not connect',
      },
    });
    expect(eventFromAudit(audit('secret.rotation_succeeded'))).toBeUndefined();
    expect(eventFromAudit(audit('secret.rotation_configure'))).toBeUndefined();
    expect(eventFromAudit(audit('secret.stage'))).toBeUndefined();
  });

  it('make none for other actions or without an account', () => {
    expect(eventFromAudit(audit('project.create'))).toBeUndefined();
    expect(eventFromAudit(audit('webhook_endpoint.update'))).toBeUndefined();
    expect(eventFromAudit({ ...audit('secret.create'), accountId: undefined })).toBeUndefined();
  });

  it('carry the switched-off endpoint in the disabled event', () => {
    const event = eventFromAudit({
      ...audit('webhook_endpoint.disabled', {
        url: 'https://x',
        disabledAt: 't',
        disabledReason: 'r',
        consecutiveFailures: 20,
        failingSince: 's',
      }),
      target: 'we_1',
    });
    expect(event?.data).toEqual({
      endpointId: 'we_1',
      url: 'https://x',
      disabledAt: 't',
      disabledReason: 'r',
      consecutiveFailures: 20,
      failingSince: 's',
    });
  });
});

describe('delivery ids', () => {
  it('are deterministic per event and endpoint, distinct across endpoints, and valid whd_ ULIDs', () => {
    const a = deliveryIdFor('evt_01JABCDEFGHJKMNPQRSTVWXYZ0', 'we_1');
    expect(deliveryIdFor('evt_01JABCDEFGHJKMNPQRSTVWXYZ0', 'we_1')).toBe(a);
    expect(deliveryIdFor('evt_01JABCDEFGHJKMNPQRSTVWXYZ0', 'we_2')).not.toBe(a);
    expect(isId('delivery', a)).toBe(true);
    expect(a.slice(4, 14)).toBe('01JABCDEFG');
  });
});
