/*
 * The worker's delivery queue (SQS for short waits, EventBridge Scheduler for long ones), which the handler imports on
 * the first message it queues: a chunk of its own, so a cold start builds neither client (lib/lambda-bundle.ts).
 */
export { makeSchedulingQueue } from '../../shared/webhooks/on-first-use.ts';
