/*
 * The delivery queue (with the SQS client), in a module of its own that the handler imports on the first message it
 * sends: one chunk split point, so a cold start that lists or reads deliveries does without it.
 */
export { enqueueNow, immediateQueueFromConfig } from '../../shared/webhooks/on-first-use.ts';
