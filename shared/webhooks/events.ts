import { createHash } from 'node:crypto';
import type { AuditEntry } from '../store/audit.ts';

/** The event types an endpoint can subscribe to (api.md section 6). */
export const EVENT_TYPES = [
  { type: 'service.secret.create', description: 'A secret was created (its first version was written).' },
  { type: 'service.secret.rotate', description: 'A new version of an existing secret was written.' },
  { type: 'service.secret.reveal', description: "A secret's value was revealed by a person or a machine token." },
  { type: 'service.secret.delete', description: 'A secret and all of its versions were deleted.' },
  {
    type: 'service.webhook_endpoint.disabled',
    description: 'The service switched off another of the workspace\'s endpoints because its deliveries kept failing.',
  },
] as const;

export type EventType = (typeof EVENT_TYPES)[number]['type'];
export const EVENT_TYPE_NAMES = EVENT_TYPES.map((e) => e.type) as [EventType, ...EventType[]];

/** Which audit actions become which events: the audit item's stream record is the event's source. */
export const EVENT_OF_ACTION: Readonly<Record<string, EventType>> = {
  'secret.create': 'service.secret.create',
  'secret.rotate': 'service.secret.rotate',
  'secret.reveal': 'service.secret.reveal',
  'secret.delete': 'service.secret.delete',
  'webhook_endpoint.disabled': 'service.webhook_endpoint.disabled',
};

/** An audit item as its stream record carries it: the entry and the workspace it belongs to. */
export type AuditRecord = AuditEntry & { workspaceId: string };

export interface WebhookEvent {
  id: string;
  type: EventType;
  account: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/**
 * The event an audit record stands for, or undefined. Its id is derived from the audit id, so a stream batch seen
 * twice yields the same event id. Secret events name the secret and where it lives, and the acting subject; never a
 * value.
 */
export function eventFromAudit(record: AuditRecord): WebhookEvent | undefined {
  const type = EVENT_OF_ACTION[record.action];
  if (!type || !record.accountId) return undefined;
  const m = record.metadata;
  const data =
    type === 'service.webhook_endpoint.disabled'
      ? { endpointId: record.target, url: m.url, disabledAt: m.disabledAt, disabledReason: m.disabledReason, consecutiveFailures: m.consecutiveFailures, failingSince: m.failingSince }
      : {
          secretId: record.target,
          key: m.key,
          ...(type === 'service.secret.delete' ? {} : { version: m.version }),
          projectId: m.projectId,
          environmentId: m.environmentId,
          actorSub: record.actorSub,
        };
  return { id: `evt_${record.id.slice('aud_'.length)}`, type, account: record.accountId, occurredAt: record.createdAt, data };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The delivery id of an event to an endpoint: a ULID whose time is the event's and whose randomness is a hash of
 * both ids, so the fan-out creates the same delivery however often it sees the event.
 */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  const digest = createHash('sha256').update(`${eventId}\n${endpointId}`).digest();
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[digest[i]! % 32];
  return `whd_${eventId.slice('evt_'.length, 'evt_'.length + 10)}${random}`;
}
