/**
 * What other parts use of webhooks: the event types (the API description lists them) and the one-time scheduler's
 * contract, which the local stack's stand-in for EventBridge Scheduler keeps. Entry modules besides this file
 * (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry webhook-answers.ts what the webhooks and deliveries routes answer, for them and the API description
 */
export { EVENT_TYPE_NAMES, EVENT_TYPES, PING_EVENT_TYPE } from './events.ts';
export { assertScheduleName, type OneTimeScheduler, type ScheduleInput } from './scheduler.ts';
/** The services, by their types: the webhooks and deliveries routes declare their handlers over them. */
export type { DeliveryService, WebhookService } from './webhook-service.ts';
export type { WebhookOperations } from './webhook-operations-service.ts';
export type { DeliveryStatsService } from './delivery-stats-service.ts';
