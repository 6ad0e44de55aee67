import { makeAccessKeyRoutes } from '../../functions/access-keys/routes.ts';
import { makeAuditRoutes } from '../../functions/audit/routes.ts';
import { makeAuditStreamRoutes } from '../../functions/audit-streams/routes.ts';
import { makeAuthRoutes } from '../../functions/auth/routes.ts';
import { makeChangeRequestRoutes } from '../../functions/change-requests/routes.ts';
import { makeSyncRoutes } from '../../functions/syncs/routes.ts';
import { makeEnvironmentRoutes } from '../../functions/environments/routes.ts';
import { makeProjectRoutes } from '../../functions/projects/routes.ts';
import { makeSecretRoutes } from '../../functions/secrets/routes.ts';
import { makeDeliveryRoutes } from '../../functions/webhook-deliveries/routes.ts';
import { makeWebhookRoutes } from '../../functions/webhooks/routes.ts';
import type { RouteDefinition } from '../../shared/platform/http/route.ts';
import type { RouteGroup } from '../../shared/platform/routes.ts';

/**
 * Every route definition by route key (all but the API description's own), as the route groups declare them. The services are never
 * called here: the document needs the definitions only.
 */
export function allRouteDefinitions(): Record<string, RouteDefinition> {
  const none = {} as never;
  // The AWS API (`POST /`) is AWS JSON 1.1, described by AWS's own service model, not by this document.
  const groups: Record<Exclude<RouteGroup, 'openapi' | 'aws'>, Record<string, RouteDefinition>> = {
    projects: makeProjectRoutes(none),
    environments: makeEnvironmentRoutes(none),
    secrets: makeSecretRoutes(none, none, none),
    audit: makeAuditRoutes(none, none),
    'access-keys': makeAccessKeyRoutes(none),
    webhooks: makeWebhookRoutes(none),
    'webhook-deliveries': makeDeliveryRoutes(none, none, none),
    auth: makeAuthRoutes(none),
    'change-requests': makeChangeRequestRoutes(none),
    syncs: makeSyncRoutes(none),
    'audit-streams': makeAuditStreamRoutes(none),
  };
  return Object.assign({}, ...Object.values(groups));
}
