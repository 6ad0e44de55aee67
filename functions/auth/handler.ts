import { loginServiceOf } from '../../shared/access/login-wiring.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { makeAuthRoutes } from './routes.ts';

/** Lambda entry of the auth route group: the one route a caller reaches without a token. */
export const handler = makeRouteGroupHandler(makeAuthRoutes(loginServiceOf(runtime())), {});
