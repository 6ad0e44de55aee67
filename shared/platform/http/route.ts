import type { $ZodType } from 'zod/v4/core';
import type { RouteAccess } from './authentication.ts';
import type { Principal } from '../principal.ts';
import type { RequestLog } from '../logger.ts';
import type { Prefetched } from '../prefetch.ts';
import type { ItemKey } from '../prefetch.ts';
import type { PageMeta } from './envelope.ts';
import { once } from './once.ts';

/** What a route handler receives: validated input and the caller. */
export interface RouteInput<P, Q, B, H = undefined> {
  params: P;
  query: Q;
  body: B;
  /** The request headers the route declares (names lower-cased), validated like params, query and body. */
  headers: H;
  principal: Principal;
  /** Items this route's `prefetch` asked for, read in the credential's round trip. */
  prefetched: Prefetched;
  requestId: string;
  log: RequestLog;
  /** Where the request came from, as API Gateway saw it (`requestContext.http.sourceIp`, never a header). */
  sourceIp: string | undefined;
}

/** The request as received, before validation. */
export interface RawInput {
  workspaceId: string;
  params: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  body: unknown;
}

/** What a route handler answers: the envelope's `data`, and `page` for lists. */
export interface RouteOutput {
  data: unknown;
  page?: PageMeta;
}

/** The error codes a route may answer besides those every route can (see `COMMON_ERRORS` in bin/openapi.ts). */
export type RouteErrorCode =
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'LIMIT_EXCEEDED'
  | 'RATE_LIMITED'
  | 'ALREADY_QUEUED'
  | 'ENDPOINT_DISABLED'
  | 'REVIEW_REQUIRED';

export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, H = unknown> {
  /** Stable, camelCase: the OpenAPI operationId, and the SDK's method name. */
  operationId: string;
  /** One line for the OpenAPI document. */
  summary: string;
  /** What it does, its audit action, its event, its rate limit. */
  description?: string;
  /**
   * What the route needs of its caller, asked of shared/access/permissions.ts before the handler runs: `workspace`
   * (every credential; the services ask its policy about each project, environment and secret) or `admin` (the
   * workspace's administration); a caller without it gets FORBIDDEN. `public`: no credential at all (the login,
   * which is how a workload gets one); its handler gets no principal.
   */
  access: RouteAccess | 'public';
  /** Success status: 201 for creating POSTs, 202 for a delivery retry, 200 otherwise. */
  status?: 200 | 201 | 202;
  params?: $ZodType<P>;
  query?: $ZodType<Q>;
  body?: $ZodType<B>;
  /** Request headers the route reads (`If-Match`), by their lower-case names; other headers are not its input. */
  headers?: $ZodType<H>;
  /**
   * Keys to read in the same BatchGetItem as the credential, from the raw (not yet validated) input: it must check
   * what it uses and answer [] for anything malformed, which validation then refuses.
   */
  prefetch?: (raw: RawInput) => readonly ItemKey[];
  /** The schema of the answer's `data`: the answer is built through it, so only its fields leave. */
  response: $ZodType;
  /** A list route: `meta.page` comes with the answer. */
  paged?: true;
  /** Answers secret values: an `Idempotency-Key` is refused, since a value is never replayed from storage. */
  reveals?: true;
  /** Changes state: an `Idempotency-Key` makes a repeat answer the first answer instead of changing anything again. */
  idempotent?: true;
  /** Its answer carries a one-time secret: a stored answer is sealed with the envelope cipher. */
  oneTimeSecret?: true;
  /** Route-specific error codes it may answer. */
  errors?: readonly RouteErrorCode[];
  handler: (input: RouteInput<P, Q, B, H>) => Promise<RouteOutput>;
}

/** The answer of a list route: the page's items as `data`, and `meta.page` from the limit asked and the page read. */
export function listOutput(limit: number, page: { items: unknown[]; nextCursor: string | null; hasMore: boolean }): RouteOutput {
  return { data: page.items, page: { limit, nextCursor: page.nextCursor, hasMore: page.hasMore } };
}

/** Declares a route with its schemas, keeping the handler's input typed from them. */
export function defineRoute<P = undefined, Q = undefined, B = undefined, H = undefined>(
  route: RouteDefinition<P, Q, B, H>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}

/**
 * A route group's routes, each declared by a function that runs the first time the route is read: a cold container
 * builds the zod schemas of the route it serves, not those of every route in its group. A route reads the same as
 * one declared directly (the routing middleware, the OpenAPI generator, `Object.entries`); listing the keys builds
 * nothing.
 */
export function lazyRoutes<K extends string>(declarations: Record<K, () => RouteDefinition>): Record<K, RouteDefinition> {
  const routes = {} as Record<K, RouteDefinition>;
  for (const [key, declare] of Object.entries<() => RouteDefinition>(declarations)) {
    Object.defineProperty(routes, key, { enumerable: true, get: once(declare) });
  }
  return routes;
}
