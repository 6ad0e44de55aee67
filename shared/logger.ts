import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured JSON logger of a container. Per request, use `requestLogger` so that concurrent requests in
 * the local stack never share keys. Nothing that reaches it may carry a token, a secret value or a signing secret:
 * callers log ids and codes, never payloads or headers.
 */
export const logger = new Logger({ serviceName: process.env.SERVICE_NAME ?? 'secrets-service' });

/** A child logger whose every line carries the request id. */
export function requestLogger(requestId: string): Logger {
  return logger.createChild({ persistentKeys: { requestId } });
}
