import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, type AuditAction } from '../../../../shared/audit/audit-actions.ts';
import { EVENT_OF_ACTION, eventFromAudit, isEventAction, type AuditRecord } from '../../../../shared/webhooks/deliveries/events.ts';
import { EVENT_TYPE_NAMES } from '../../../../shared/webhooks/deliveries/event-types.ts';

const record = (action: AuditAction): AuditRecord => ({
  id: 'aud_01JABCDEFGHJKMNPQRSTVWXYZ0',
  action,
  actorSub: 'usr_1',
  target: 'sec_1',
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  workspaceId: 'ws_1',
  accountId: 'acc_1',
});

describe('the map from audit actions to events', () => {
  it('maps only audit actions, and every event type is the image of some action', () => {
    // Act
    const actions = Object.keys(EVENT_OF_ACTION);
    const types = new Set(Object.values(EVENT_OF_ACTION));

    // Assess
    expect(actions.filter((action) => !(AUDIT_ACTIONS as readonly string[]).includes(action))).toEqual([]);
    expect(EVENT_TYPE_NAMES.filter((type) => !types.has(type))).toEqual([]);
  });

  it('turns every mapped action into its event, and no other action into any', () => {
    // Act
    const events = AUDIT_ACTIONS.map((action) => [action, eventFromAudit(record(action))?.type] as const);

    // Assess
    for (const [action, type] of events) {
      expect({ action, type }).toEqual({ action, type: isEventAction(action) ? EVENT_OF_ACTION[action] : undefined });
    }
  });

  it('announces a restored secret as created again, with its current version (decisions.md, "Recoverable deletes")', () => {
    // Act
    const event = eventFromAudit({
      ...record('secret.restore'),
      metadata: { key: 'DB_URL', projectId: 'proj_1', environmentId: 'env_1', version: 3 },
    });
    // Assess
    expect(event).toMatchObject({
      type: 'service.secret.create',
      data: { secretId: 'sec_1', key: 'DB_URL', version: 3, projectId: 'proj_1', environmentId: 'env_1' },
    });
  });

  it('reads a stream record\'s action as data: inherited names such as "constructor" are no event', () => {
    // Prepare
    const odd = { ...record('secret.create'), action: 'constructor' } as unknown as AuditRecord;

    // Act
    const event = eventFromAudit(odd);

    // Assess
    expect(isEventAction('constructor')).toBe(false);
    expect(event).toBeUndefined();
  });
});
