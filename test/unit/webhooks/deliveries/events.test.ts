import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, type AuditAction } from '../../../../shared/audit/audit-actions.ts';
import {
  deliveryIdFor,
  EVENT_OF_ACTION,
  EVENT_TYPES_MADE,
  eventFromAudit,
  isEventAction,
  type AuditRecord,
} from '../../../../shared/webhooks/deliveries/events.ts';
import { EVENT_TYPE_NAMES } from '../../../../shared/webhooks/deliveries/event-types.ts';
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
    const types = new Set(EVENT_TYPES_MADE);

    // Assess
    expect(actions.filter((action) => !(AUDIT_ACTIONS as readonly string[]).includes(action))).toEqual([]);
    expect(EVENT_TYPE_NAMES.filter((type) => !types.has(type))).toEqual([]);
  });

  it('turns every mapped action into its event, and no other action into any', () => {
    // Act
    const events = AUDIT_ACTIONS.map((action) => [action, eventFromAudit(record(action))?.type] as const);

    // Assess
    for (const [action, type] of events) {
      // A review fires only when it approves the request (change-request-events.test.ts); this record says no status.
      // A sync's update fires only when the service moved its status (sync-events below); this record says none.
      const fires = isEventAction(action) && action !== 'change_request.review' && action !== 'sync.update';
      expect({ action, type }).toEqual({ action, type: fires ? EVENT_OF_ACTION[action] : undefined });
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

describe('sync events (decisions.md v1.4, "Syncs")', () => {
  const statusMoved = (actorSub: string, status: string) =>
    eventFromAudit({
      ...record('sync.update'),
      actorSub,
      target: 'sync_1',
      metadata: {
        syncId: 'sync_1',
        environmentId: 'env_1',
        projectId: 'proj_1',
        destinationType: 'aws-ssm',
        status,
        lastError: 'SSM answered 400',
      },
    });

  it("the service's update to failing is service.sync.failed, back to ok service.sync.recovered, with the sync's data", () => {
    const data = {
      syncId: 'sync_1',
      environmentId: 'env_1',
      projectId: 'proj_1',
      destinationType: 'aws-ssm',
      lastError: 'SSM answered 400',
    };
    expect(statusMoved('system', 'failing')).toMatchObject({ type: 'service.sync.failed', data });
    expect(statusMoved('system', 'ok')).toMatchObject({ type: 'service.sync.recovered', data });
  });

  it("an admin's update of a sync, or another status, is no event", () => {
    expect(statusMoved('usr_admin', 'failing')).toBeUndefined();
    expect(statusMoved('system', 'paused')).toBeUndefined();
  });
});
