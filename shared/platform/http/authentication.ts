import type { Prefetched, ItemKey } from '../prefetch.ts';
import type { Principal } from '../principal.ts';

/**
 * What the request chain asks of the access feature (shared/access/authenticate.ts), as shapes only: the chain
 * carries a route's needs to the authenticator and its answer to the handler, and decides nothing itself.
 */

/** What a route needs of its caller: any credential of the workspace, or one that administers it. */
export type RouteAccess = 'workspace' | 'admin';

/** Where the request came from, as API Gateway saw it (never a header the caller wrote). */
export interface RequestOrigin {
  sourceIp?: string | undefined;
}

/** The route being called: the access feature refuses a caller the route's `access` does not admit (FORBIDDEN). */
export interface RouteCall {
  routeKey: string;
  access: RouteAccess;
}

/** Who called, and the items the route asked to read in the same round trip as the credential. */
export interface Authenticated {
  principal: Principal;
  prefetched: Prefetched;
  /** Background bookkeeping (a key's `lastUsedAt`) to await before the request ends; never rejects. */
  pending?: Promise<void>;
}

/** The keys a route wants read together with the credential, once the caller's workspace is known. */
export type PrefetchKeys = (workspaceId: string) => readonly ItemKey[];

/**
 * Turns an `Authorization` header into a principal allowed to call the route, or throws AUTH_REQUIRED,
 * WORKSPACE_NOT_ALLOWLISTED or FORBIDDEN.
 */
export type Authenticator = (
  authorization: string | undefined,
  prefetch?: PrefetchKeys,
  origin?: RequestOrigin,
  route?: RouteCall,
) => Promise<Authenticated>;
