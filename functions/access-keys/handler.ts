import { makeRouteGroupHandler } from '../../shared/http/handler.ts';
import { apiRuntime } from '../../shared/api-runtime.ts';
import { makeAccessKeyService } from '../../shared/services/access-keys.ts';
import { makeAccessKeyRoutes } from './routes.ts';
import { makeAccessKeyStore } from '../../shared/store/access-keys.ts';

const { db, pager, clock, authenticate } = apiRuntime();
const store = makeAccessKeyStore(db, pager);

/** Lambda entry of the access-keys route group. */
export const handler = makeRouteGroupHandler(makeAccessKeyRoutes(makeAccessKeyService({ store, clock })), { authenticate });
