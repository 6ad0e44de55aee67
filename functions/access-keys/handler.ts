import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeAccessKeyService } from '../../shared/services/access-keys.ts';
import { makeAccessKeyRoutes } from './routes.ts';

const { store, clock, authenticate } = runtime();

/** Lambda entry of the access-keys route group. */
export const handler = makeRouteGroupHandler(makeAccessKeyRoutes(makeAccessKeyService({ store, clock })), { authenticate });
