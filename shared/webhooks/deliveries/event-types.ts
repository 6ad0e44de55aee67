/*
 * The catalog of event types (api.md section 6): what an endpoint can subscribe to, what the API lists, and the
 * test event's type. Apart from the events themselves (events.ts, built from audit records), which the pipeline and
 * test events need and the API's cold starts do not.
 */

/** The event types an endpoint can subscribe to (api.md section 6). */
export const EVENT_TYPES = [
  { type: 'service.secret.create', description: 'A secret was created (its first version was written), or a deleted one restored.' },
  { type: 'service.secret.rotate', description: 'A new version of an existing secret was written.' },
  { type: 'service.secret.reveal', description: "A secret's value was revealed by a person or a machine token." },
  { type: 'service.secret.delete', description: 'A secret and all of its versions were deleted.' },
  {
    type: 'service.secret.rotation_failed',
    description: 'A rotation of a secret failed at a step; its current value is unchanged.',
  },
  // Change requests (decisions.md v1.4); each one's data names the request, where it is, its title and keys.
  { type: 'service.change_request.opened', description: "A change to an environment's secrets was proposed for review." },
  { type: 'service.change_request.approved', description: 'A change request received the approvals its environment asks for.' },
  { type: 'service.change_request.merged', description: "A change request's changes were applied, all in one transaction." },
  { type: 'service.change_request.closed', description: 'A change request was closed without being merged.' },
  // Syncs (decisions.md v1.4): data names the sync, its environment, project, destination type and last error.
  { type: 'service.sync.failed', description: 'A sync has failed to push for 24 hours; it keeps trying on every change.' },
  { type: 'service.sync.recovered', description: 'A failing sync pushed again.' },
  {
    type: 'service.webhook_endpoint.disabled',
    description: "The service switched off another of the workspace's endpoints because its deliveries kept failing.",
  },
] as const;

export type EventType = (typeof EVENT_TYPES)[number]['type'];
export const EVENT_TYPE_NAMES = /* @__PURE__ */ EVENT_TYPES.map((e) => e.type) as [EventType, ...EventType[]];

/**
 * The test event (decisions.md, "Webhook operations"): sent on request to one endpoint, whatever it subscribes to,
 * through the normal pipeline. Not an event type an endpoint can subscribe to.
 */
export const PING_EVENT_TYPE = 'service.ping';
