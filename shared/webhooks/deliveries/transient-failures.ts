import { ServiceUnavailableError } from '../../platform/errors.ts';

/*
 * The failures of the queue's AWS calls (SQS, EventBridge Scheduler) that only waiting can cure. A module apart from
 * the Scheduler adapter, so the SQS queue (delivery-queue.ts), which every pipeline function reaches at cold start,
 * does not bring the Scheduler's commands with it: the worker loads those with its first long wait.
 */

const TRANSIENT = new Set([
  'ThrottlingException',
  'Throttling',
  'RequestThrottled',
  'TooManyRequestsException',
  'InternalServerException',
  'InternalError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
]);

/**
 * Maps AWS SDK failures that only waiting can cure (throttling, server faults, network) to SERVICE_UNAVAILABLE, which
 * callers treat as retryable; anything else is rethrown untouched.
 */
export function translateAwsError(error: unknown, service: string): never {
  const e = (error ?? {}) as { name?: string; code?: string; $fault?: string; $retryable?: unknown };
  const network = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(e.code ?? '');
  if (TRANSIENT.has(e.name ?? '') || e.$fault === 'server' || e.$retryable || network) {
    throw new ServiceUnavailableError(`${service} is throttling or unavailable; retry shortly`);
  }
  throw error;
}
