/*
 * The contract of a one-time scheduler: EventBridge Scheduler's adapter (scheduler.ts) keeps it in AWS, the local
 * stack's stand-in (bin/local/local-scheduler.ts) on a laptop. Apart from the adapter, so the stand-in and a bundle
 * that reaches the feature's index.ts take the contract without the Scheduler client.
 */

/** One message to put on the delivery queue at a given time. */
export interface ScheduleInput {
  /** Idempotency key: scheduling the same name again does nothing. 1–64 characters of `[0-9a-zA-Z-_.]`. */
  name: string;
  /** Epoch milliseconds; the message is never sent before it. */
  at: number;
  messageBody: string;
}

/**
 * Sends a message to the delivery queue once, at a later time. The target queue is fixed by each implementation:
 * EventBridge Scheduler in AWS, `bin/local/local-scheduler.ts` in the local stack.
 */
export interface OneTimeScheduler {
  schedule(input: ScheduleInput): Promise<void>;
}

const NAME_PATTERN = /^[0-9a-zA-Z_.-]{1,64}$/;

/** Refuses a name EventBridge Scheduler would reject, before any call is made; the name itself is not echoed. */
export function assertScheduleName(name: string): void {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    const length = typeof name === 'string' ? name.length : 0;
    throw new Error(`Invalid schedule name (${length} characters): use 1 to 64 characters of 0-9, a-z, A-Z, '-', '_' and '.'`);
  }
}
