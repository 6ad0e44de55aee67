import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { projectServiceOf } from '../../shared/workspaces/workspace-wiring.ts';
import { makeEnvironmentRoutes } from './routes.ts';

const { db, pager, clock, authenticate, idempotency } = apiRuntime();

/** Lambda entry of the environments route group. */
export const handler = makeRouteGroupHandler(makeEnvironmentRoutes(projectServiceOf({ db, pager, clock })), { authenticate, idempotency });
