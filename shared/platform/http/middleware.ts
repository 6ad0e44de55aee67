import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Authenticator } from './authentication.ts';
import type { Principal } from '../principal.ts';
import type { Prefetched } from '../prefetch.ts';
import { ApiError, AuthRequiredError, PayloadTooLargeError, ValidationError } from '../errors.ts';
import { newRequestId } from '../ids.ts';
import { mappedFramesOf, requestLogger, type RequestLog } from '../logger.ts';
import { errorResponse, GENERIC_NOT_FOUND } from './envelope.ts';
import type { IdempotencyClaim } from '../idempotency-scope.ts';
import type { RouteDefinition } from './route.ts';
import { parseInput, shapeProblem } from './validation.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** Per-request state the middlewares hand to the handler. */
export interface ApiState {
  requestId: string;
  log: RequestLog;
  startedAt: number;
  route?: RouteDefinition;
  principal?: Principal;
  prefetched?: Prefetched;
  /** Bookkeeping started by authentication, awaited before the request ends. */
  pending?: Promise<void>;
  body?: unknown;
  /** A body that could not be read; reported by validation, after authentication. */
  bodyError?: ApiError;
  input?: { params: unknown; query: unknown; body: unknown; headers: unknown };
  /** The request's claim on its Idempotency-Key (shared/platform/http/idempotency.ts). */
  idempotency?: IdempotencyClaim;
  /** A repeat's recorded answer: the handler returns it instead of running. */
  replay?: ApiResult;
}

/** The Lambda context with this chain's state on it (middy hands the same object to the handler). */
export type ApiContext = Context & { api: ApiState };
export type ApiRequest = Request<ApiEvent, ApiResult, Error>;

/** The state of a request; set by `requestContext`, the first middleware. */
export function stateOf(request: ApiRequest): ApiState {
  return (request.context as ApiContext).api;
}

/** Max request body (decisions.md): 256 KiB. */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * First in, last out: gives the request its `req_` id and logger, and writes one access line at the end with
 * route, status and duration (never headers or bodies).
 */
export function requestContext(): MiddlewareObj<ApiEvent, ApiResult> {
  const finish = async (request: ApiRequest) => {
    const state = stateOf(request);
    // Lambda freezes the container once the handler returns: started work must end first.
    await state.pending;
    const status = request.response?.statusCode ?? 500;
    state.log[status >= 500 ? 'error' : 'info']('request completed', {
      routeKey: request.event.routeKey,
      status,
      durationMs: Date.now() - state.startedAt,
      ...(request.error instanceof ApiError ? { errorCode: request.error.code } : {}),
    });
  };
  return {
    before: (request) => {
      const requestId = newRequestId();
      (request.context as ApiContext).api = { requestId, log: requestLogger(requestId), startedAt: Date.now() };
    },
    after: finish,
    onError: finish,
  };
}

/**
 * The only place that maps errors to the envelope. An ApiError answers its own code and message; anything else
 * is logged by name and stack and answers a plain INTERNAL_ERROR that reveals nothing.
 */
export function errorMapper(): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    onError: async (request) => {
      const state = stateOf(request);
      const error = request.error;
      // Answered already by a middleware that had to record the answer it gives (idempotency).
      if (request.response) return;
      if (error instanceof ApiError) {
        request.response = errorResponse(state.requestId, error);
        return;
      }
      state.log.error('unhandled error', await describeUnexpected(error));
      request.response = errorResponse(state.requestId, new ApiError('An unexpected error occurred'));
    },
  };
}

/**
 * What may be logged of an unexpected error: its name and stack frames, and the message only when it is an AWS
 * SDK error (service messages name resources, not values). Our own messages could quote input, so they stay out.
 */
async function describeUnexpected(error: Error | null | undefined): Promise<Record<string, unknown>> {
  const frames = await mappedFramesOf(error);
  const fromAws = typeof error === 'object' && error !== null && '$metadata' in error;
  return { errorName: error?.name, ...(fromAws ? { errorMessage: error.message } : {}), frames };
}

/**
 * Finds the route of the event's route key and authenticates the caller against it. An unknown route key answers
 * API Gateway's generic 404 before any authentication, as API Gateway itself would.
 */
export function routing(routes: Readonly<Record<string, RouteDefinition>>): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    before: (request) => {
      const route = routes[request.event.routeKey];
      if (!route) return GENERIC_NOT_FOUND;
      stateOf(request).route = route;
      return undefined;
    },
  };
}

/**
 * Authenticates the caller against the route, reading the route's `prefetch` keys in the credential's round trip;
 * a caller without the access the route needs is FORBIDDEN (the authenticator asks shared/access/permissions.ts).
 */
export function authentication(authenticate: Authenticator | undefined): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    before: async (request) => {
      const state = stateOf(request);
      const route = state.route!;
      if (route.access === 'public') return undefined;
      // A group without an authenticator serves public routes only: any other is refused, never served unauthenticated.
      if (!authenticate) throw new AuthRequiredError('Authorization: a Bearer token is required');
      const { pathParameters, queryStringParameters } = request.event;
      const prefetch = route.prefetch
        ? (workspaceId: string) =>
            route.prefetch!({ workspaceId, params: pathParameters ?? {}, query: queryStringParameters ?? {}, body: state.body })
        : undefined;
      const sourceIp = request.event.requestContext?.http?.sourceIp;
      const routeCall = { routeKey: request.event.routeKey, access: route.access };
      const { principal, prefetched, pending } = await authenticate(
        request.event.headers?.authorization,
        prefetch,
        { sourceIp },
        routeCall,
      );
      state.principal = principal;
      state.prefetched = prefetched;
      state.pending = pending;
      return undefined;
    },
  };
}

/** Strict UTF-8: one decoder per container. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads the request body: at most 256 KiB on every route (a route that takes no body ignores a smaller one, but no
 * route reads a larger one), parsed as JSON for routes that take one, before authentication so that a route can
 * prefetch by a body field. A body that is too large or malformed is only noted here and refused by validation, so
 * an unauthenticated caller still gets AUTH_REQUIRED first. The parser's message is dropped: it quotes input.
 */
export function jsonBody(): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    before: (request) => {
      const state = stateOf(request);
      const { body: raw, isBase64Encoded } = request.event;
      if (raw === undefined || raw === null || raw === '') return;
      if (Buffer.byteLength(raw, isBase64Encoded ? 'base64' : 'utf8') > MAX_BODY_BYTES) {
        state.bodyError = new PayloadTooLargeError(`body: must be at most ${MAX_BODY_BYTES} bytes`);
        return;
      }
      if (!state.route?.body) return;
      try {
        state.body = parseJson(decodeBody(raw, isBase64Encoded));
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        state.bodyError = error;
      }
    },
  };
}

/**
 * The body as text. API Gateway passes a text body as a string and any other base64-encoded; bytes that are not
 * UTF-8 would otherwise become U+FFFD, and a value would not round-trip, so they are refused as lone surrogates are.
 */
function decodeBody(raw: string, isBase64Encoded: boolean | undefined): string {
  if (!isBase64Encoded) {
    // A string body came from bytes decoded upstream: one with a lone surrogate cannot have been UTF-8.
    if (!raw.isWellFormed()) throw new ValidationError('body: must be valid UTF-8');
    return raw;
  }
  try {
    return UTF8.decode(Buffer.from(raw, 'base64'));
  } catch {
    throw new ValidationError('body: must be valid UTF-8');
  }
}

/**
 * The parsed body, refused when nested deeper than MAX_DEPTH or not well-formed. JSON.parse copes with any depth,
 * but what walks the body later recurses (zod, the idempotency digest's JSON.stringify, which overflows at 10,000
 * levels): checked here, before authentication's prefetch, nothing after this ever holds such a body.
 */
function parseJson(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ValidationError('body: must be valid JSON');
  }
  const problem = shapeProblem(body);
  if (problem !== undefined) throw new ValidationError(problem);
  return body;
}

/** Validates path, query, body and headers against the route's schemas; every failure names its field and rule. */
export function validation(): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    before: (request) => {
      const state = stateOf(request);
      if (state.bodyError) throw state.bodyError;
      const route = state.route!;
      const { pathParameters, queryStringParameters } = request.event;
      if (route.reveals && request.event.headers?.['idempotency-key'] !== undefined) {
        throw new ValidationError('Idempotency-Key: is not accepted on a reveal route (a value is never replayed from storage)');
      }
      state.input = {
        params: route.params ? parseInput(route.params, pathParameters ?? {}) : undefined,
        query: route.query ? parseInput(route.query, queryStringParameters ?? {}) : undefined,
        body: route.body ? parseInput(route.body, state.body) : undefined,
        headers: route.headers ? parseInput(route.headers, request.event.headers ?? {}) : undefined,
      };
    },
  };
}
