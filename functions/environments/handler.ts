import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeProjectService } from '../../shared/services/projects.ts';
import { makeEnvironmentRoutes } from './routes.ts';

const { store, clock, authenticate } = runtime();

/** Lambda entry of the environments route group. */
export const handler = makeRouteGroupHandler(makeEnvironmentRoutes(makeProjectService({ store, clock })), { authenticate });
