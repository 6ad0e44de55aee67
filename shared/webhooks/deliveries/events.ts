import { createHash } from 'node:crypto';
import { SYSTEM_ACTOR, type AuditAction, type AuditEntry } from '../../audit/index.ts';
import type { StoredDelivery } from './delivery-records.ts';
import { PING_EVENT_TYPE, type EventType } from './event-types.ts';

/**
 * Which audit actions become which events: the audit item's stream record is the event's source. Keys are audit
 * actions (a misspelt one does not compile); every event type must be the image of some action (checked below).
 */
export const EVENT_OF_ACTION = {
  'secret.create': 'service.secret.create',
  'secret.rotate': 'service.secret.rotate',
  'secret.reveal': 'service.secret.reveal',
  'secret.delete': 'service.secret.delete',
  // A restored secret exists again, with its current version (decisions.md, "Recoverable deletes").
  'secret.restore': 'service.secret.create',
  'secret.rotation_failed': 'service.secret.rotation_failed',
  'webhook_endpoint.disabled': 'service.webhook_endpoint.disabled',
  'change_request.open': 'service.change_request.opened',
  // Only the review that approves it (FIRED_ONLY_WHEN): a reject, or an approval still short of enough, fires nothing.
  'change_request.review': 'service.change_request.approved',
  'change_request.merge': 'service.change_request.merged',
  'change_request.close': 'service.change_request.closed',
  // The service's own update of a sync whose status moved (decisions.md v1.4, "Syncs"): failing, or ok again.
  'sync.update': 'service.sync.failed',
} as const satisfies Partial<Record<AuditAction, EventType>>;

/** Actions that become their event only when their entry says so. */
const FIRED_ONLY_WHEN: Partial<Record<EventAction, (record: AuditRecord) => boolean>> = {
  'change_request.review': (record) => record.metadata.status === 'approved',
  // An admin's change of a sync is no event; the service's (actor `system`) is, when the status moved.
  'sync.update': (record) => record.actorSub === SYSTEM_ACTOR && (record.metadata.status === 'failing' || record.metadata.status === 'ok'),
};

/** Events an action makes instead of its EVENT_OF_ACTION type when its entry says so. */
const SECOND_EVENTS = ['service.sync.recovered'] as const;
const SECOND_EVENT_WHEN: Partial<Record<EventAction, (record: AuditRecord) => (typeof SECOND_EVENTS)[number] | undefined>> = {
  'sync.update': (record) => (record.metadata.status === 'ok' ? 'service.sync.recovered' : undefined),
};

/** The event types an action can make: its own, and a second one where its entry picks it. */
export const EVENT_TYPES_MADE: readonly EventType[] = [...new Set<EventType>([...Object.values(EVENT_OF_ACTION), ...SECOND_EVENTS])];

/** The audit actions that become an event. */
export type EventAction = keyof typeof EVENT_OF_ACTION;

// Compile-time check: an event type that no action produces could never be delivered.
type EventTypeWithoutAction = Exclude<EventType, (typeof EVENT_OF_ACTION)[EventAction] | (typeof SECOND_EVENTS)[number]>;
const everyEventHasAnAction: [EventTypeWithoutAction] extends [never] ? true : EventTypeWithoutAction = true;
void everyEventHasAnAction;

/** An audit item as its stream record carries it: the entry and the workspace it belongs to. */
export type AuditRecord = AuditEntry & { workspaceId: string };

export interface WebhookEvent {
  id: string;
  type: EventType | typeof PING_EVENT_TYPE;
  account: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** Secret events name the secret, where it lives and the acting subject; never a value. */
function secretData(record: AuditRecord, withVersion: boolean): Record<string, unknown> {
  const m = record.metadata;
  return {
    secretId: record.target,
    key: m.key,
    ...(withVersion ? { version: m.version } : {}),
    projectId: m.projectId,
    environmentId: m.environmentId,
    actorSub: record.actorSub,
  };
}

/** A failed rotation: the secret, where it lives, the step that failed and why (decisions.md v1.3). */
function rotationFailureData(record: AuditRecord): Record<string, unknown> {
  const m = record.metadata;
  return { secretId: record.target, key: m.key, projectId: m.projectId, environmentId: m.environmentId, step: m.step, error: m.error };
}

/** The switched-off endpoint and why, as the worker recorded it. */
function disabledEndpointData(record: AuditRecord): Record<string, unknown> {
  const { url, disabledAt, disabledReason, consecutiveFailures, failingSince } = record.metadata;
  return { endpointId: record.target, url, disabledAt, disabledReason, consecutiveFailures, failingSince };
}

/** A change request's events: the request, where it is, its title and keys (never a proposed value). */
function changeRequestData(record: AuditRecord): Record<string, unknown> {
  const { environmentId, projectId, title, keys } = record.metadata;
  return { changeRequestId: record.target, environmentId, projectId, title, keys };
}

/** A sync that became failing or ok again: the sync, where it pushes from, its destination's type and the last error. */
function syncData(record: AuditRecord): Record<string, unknown> {
  const { environmentId, projectId, destinationType, lastError } = record.metadata;
  return { syncId: record.target, environmentId, projectId, destinationType, lastError };
}

/** One data mapper per event type: a new event type does not compile until it says what its data is. */
const EVENT_DATA: { readonly [T in EventType]: (record: AuditRecord) => Record<string, unknown> } = {
  'service.secret.create': (record) => secretData(record, true),
  'service.secret.rotate': (record) => secretData(record, true),
  'service.secret.reveal': (record) => secretData(record, true),
  'service.secret.delete': (record) => secretData(record, false),
  'service.secret.rotation_failed': rotationFailureData,
  'service.webhook_endpoint.disabled': disabledEndpointData,
  'service.change_request.opened': changeRequestData,
  'service.change_request.approved': changeRequestData,
  'service.change_request.merged': changeRequestData,
  'service.change_request.closed': changeRequestData,
  'service.sync.failed': syncData,
  'service.sync.recovered': syncData,
};

/** True for an action that becomes an event (own keys only: a stream record's action is data, not code). */
export function isEventAction(action: string): action is EventAction {
  return Object.hasOwn(EVENT_OF_ACTION, action);
}

/**
 * The event an audit record stands for, or undefined. Its id is derived from the audit id, so a stream batch seen
 * twice yields the same event id.
 */
export function eventFromAudit(record: AuditRecord): WebhookEvent | undefined {
  if (!isEventAction(record.action) || !record.accountId) return undefined;
  if (FIRED_ONLY_WHEN[record.action]?.(record) === false) return undefined;
  const type = SECOND_EVENT_WHEN[record.action]?.(record) ?? EVENT_OF_ACTION[record.action];
  const data = EVENT_DATA[type](record);
  return { id: `evt_${record.id.slice('aud_'.length)}`, type, account: record.accountId, occurredAt: record.createdAt, data };
}

/** The test event asked for by the audit entry `auditId` (`webhook_endpoint.test`): its id is derived from the entry's. */
export function pingEvent(auditId: string, accountId: string, endpointId: string, occurredAt: string): WebhookEvent {
  return { id: `evt_${auditId.slice('aud_'.length)}`, type: PING_EVENT_TYPE, account: accountId, occurredAt, data: { endpointId } };
}

/** A new delivery of `event` to one endpoint, due now. */
export function pendingDelivery(
  id: string,
  endpointId: string,
  event: WebhookEvent,
  createdAt: string,
  body: string,
  attemptToken: string,
): StoredDelivery {
  return {
    id,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    status: 'pending',
    attempts: 0,
    statusCode: null,
    lastError: null,
    nextRetryAt: createdAt,
    createdAt,
    updatedAt: createdAt,
    attemptLog: [],
    body,
    attemptToken,
    manual: false,
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID whose time is the event's and whose randomness is a hash of the event id and `other`. */
function derivedUlid(eventId: string, other: string): string {
  const digest = createHash('sha256').update(`${eventId}\n${other}`).digest();
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[digest[i]! % 32];
  return `${eventId.slice('evt_'.length, 'evt_'.length + 10)}${random}`;
}

/**
 * The delivery id of an event to an endpoint: a ULID whose time is the event's and whose randomness is a hash of
 * both ids, so the fan-out creates the same delivery however often it sees the event.
 */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  return `whd_${derivedUlid(eventId, endpointId)}`;
}

/** The id of the event an event causes for a dependent secret (its `via` event), derived as `deliveryIdFor`'s. */
export function eventIdFor(eventId: string, dependentId: string): string {
  return `evt_${derivedUlid(eventId, dependentId)}`;
}
