import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { runtime } from '../../shared/runtime.ts';
import { makeAuditRoutes } from './routes.ts';

const { store, authenticate } = runtime();

/** Lambda entry of the audit route group. */
export const handler = makeRouteGroupHandler(makeAuditRoutes(store), { authenticate });
