import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { projectServiceOf } from '../../shared/workspaces/workspace-wiring.ts';
import { makeProjectRoutes } from './routes.ts';

const { db, pager, clock, authenticate, idempotency } = apiRuntime();

/** Lambda entry of the projects route group. */
export const handler = makeRouteGroupHandler(makeProjectRoutes(projectServiceOf({ db, pager, clock })), { authenticate, idempotency });
