import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiError } from '../errors.ts';

/** `meta.page` of every list answer. */
export interface PageMeta {
  limit: number;
  nextCursor: string | null;
  hasMore: boolean;
}

const BASE_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  // Answers may hold secret values or one-time tokens: never cached by a proxy or browser.
  'cache-control': 'no-store',
};

function respond(status: number, requestId: string, body: object, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { ...BASE_HEADERS, 'x-request-id': requestId, ...headers },
    body: JSON.stringify(body),
  };
}

function meta(requestId: string, page?: PageMeta) {
  return { requestId, timestamp: new Date().toISOString(), ...(page ? { page } : {}) };
}

/** `{data, error: null, meta}`. */
export function successResponse(requestId: string, status: number, data: unknown, page?: PageMeta): APIGatewayProxyStructuredResultV2 {
  return respond(status, requestId, { data, error: null, meta: meta(requestId, page) });
}

/**
 * `{data: null, error: {code, message, details?}, meta}` with the error's status and headers (such as `Retry-After`);
 * `details` only where the error carries them.
 */
export function errorResponse(requestId: string, error: ApiError): APIGatewayProxyStructuredResultV2 {
  const { code, message, details } = error;
  const body = details ? { code, message, details } : { code, message };
  return respond(error.status, requestId, { data: null, error: body, meta: meta(requestId) }, error.headers);
}

/** An answer whose body was recorded with its change (`Idempotency-Key`): the body as stored, byte for byte. */
export function recordedResponse(requestId: string, status: number, body: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode: status, headers: { ...BASE_HEADERS, 'x-request-id': requestId }, body };
}

/** A recorded answer given again for a repeated `Idempotency-Key`: its status and body as they were first sent. */
export function replayResponse(requestId: string, status: number, body: string): APIGatewayProxyStructuredResultV2 {
  const response = recordedResponse(requestId, status, body);
  return { ...response, headers: { ...response.headers, 'idempotent-replayed': 'true' } };
}

/** API Gateway's own answer to a path or method that matches no route: before any authentication. */
export const GENERIC_NOT_FOUND: APIGatewayProxyStructuredResultV2 = {
  statusCode: 404,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Not Found' }),
};
