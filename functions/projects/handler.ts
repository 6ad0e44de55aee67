import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeProjectService } from '../../shared/services/projects.ts';
import { makeProjectRoutes } from './routes.ts';

const { store, clock, authenticate } = runtime();

/** Lambda entry of the projects route group. */
export const handler = makeRouteGroupHandler(makeProjectRoutes(makeProjectService({ store, clock })), { authenticate });
