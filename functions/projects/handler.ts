import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { apiRuntime } from '../../shared/access/api-runtime.ts';
import { makeProjectService } from '../../shared/workspaces/project-service.ts';
import { makeProjectRoutes } from './routes.ts';
import { makeProjectStore } from '../../shared/workspaces/project-store.ts';

const { db, pager, clock, authenticate, idempotency } = apiRuntime();
const store = makeProjectStore(db, pager);

/** Lambda entry of the projects route group. */
export const handler = makeRouteGroupHandler(makeProjectRoutes(makeProjectService({ store, clock })), { authenticate, idempotency });
