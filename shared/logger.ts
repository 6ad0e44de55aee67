import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured JSON logger of a container. Nothing that reaches it may carry a token, a secret value or a
 * signing secret: callers log ids and codes, never payloads or headers.
 */
export const logger = new Logger({ serviceName: process.env.SERVICE_NAME ?? 'secrets-service' });

type Attributes = Record<string, unknown>;

/** What a request may log: the container logger's levels, each line with the request's id. */
export interface RequestLog {
  debug(message: string, attributes?: Attributes): void;
  info(message: string, attributes?: Attributes): void;
  warn(message: string, attributes?: Attributes): void;
  error(message: string, attributes?: Attributes): void;
}

/**
 * The request id on every line, passed with each line to the container logger. Not a Powertools child logger: a
 * child is a whole new Logger (options merged, environment read again, a new Console), about 80 µs of CPU on every
 * request, more than the rest of the chain's own work; and unlike `appendKeys`, nothing is shared between
 * concurrent requests (the local stack runs them in one process).
 */
class RequestLine implements RequestLog {
  readonly #requestId: string;
  constructor(requestId: string) {
    this.#requestId = requestId;
  }
  debug(message: string, attributes?: Attributes): void {
    logger.debug(message, { requestId: this.#requestId, ...attributes });
  }
  info(message: string, attributes?: Attributes): void {
    logger.info(message, { requestId: this.#requestId, ...attributes });
  }
  warn(message: string, attributes?: Attributes): void {
    logger.warn(message, { requestId: this.#requestId, ...attributes });
  }
  error(message: string, attributes?: Attributes): void {
    logger.error(message, { requestId: this.#requestId, ...attributes });
  }
}

/** The logger of one request: every line carries its request id. */
export function requestLogger(requestId: string): RequestLog {
  return new RequestLine(requestId);
}
