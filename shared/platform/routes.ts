/**
 * Every API route by route group: the one list that the CDK stack (one Lambda and its routes per group) and the
 * local HTTP front both read. Each group's handler module serves exactly these route keys (a test checks it).
 */
export const ROUTE_GROUPS = {
  projects: [
    'GET /api/v1/projects',
    'POST /api/v1/projects',
    'GET /api/v1/projects/{projectId}',
    'GET /api/v1/projects/by-slug/{projectSlug}',
  ],
  environments: [
    'GET /api/v1/projects/{projectId}/environments',
    'POST /api/v1/projects/{projectId}/environments',
    'GET /api/v1/environments/{envId}',
    'GET /api/v1/projects/by-slug/{projectSlug}/environments/{envSlug}',
    'PUT /api/v1/environments/{envId}/review-policy',
    'GET /api/v1/environments/{envId}/review-policy',
    'DELETE /api/v1/environments/{envId}/review-policy',
  ],
  secrets: [
    'GET /api/v1/environments/{envId}/secrets',
    'PUT /api/v1/environments/{envId}/secrets',
    'POST /api/v1/secrets/{secretId}/reveal',
    'DELETE /api/v1/secrets/{secretId}',
    'POST /api/v1/reveal',
    'GET /api/v1/search/secrets',
    'GET /api/v1/secrets/{secretId}',
    'GET /api/v1/secrets/{secretId}/versions',
    'POST /api/v1/environments/{envId}/secrets/reveal',
    'POST /api/v1/secrets/{secretId}/rollback',
    'GET /api/v1/environments/{envId}/secrets/deleted',
    'POST /api/v1/secrets/{secretId}/restore',
    'PUT /api/v1/secrets/{secretId}/rotation',
    'DELETE /api/v1/secrets/{secretId}/rotation',
    'POST /api/v1/secrets/{secretId}/rotate',
  ],
  audit: ['GET /api/v1/audit', 'GET /api/v1/audit/digests', 'GET /api/v1/audit/public-key'],
  'access-keys': [
    'GET /api/v1/access-keys',
    'POST /api/v1/access-keys',
    'GET /api/v1/access-keys/{id}',
    'PATCH /api/v1/access-keys/{id}',
    'POST /api/v1/access-keys/{id}/revoke',
  ],
  webhooks: [
    'GET /api/v1/webhooks',
    'POST /api/v1/webhooks',
    'GET /api/v1/webhooks/{id}',
    'PATCH /api/v1/webhooks/{id}',
    'DELETE /api/v1/webhooks/{id}',
    'GET /api/v1/webhooks/{id}/deliveries',
    'GET /api/v1/webhooks/event-types',
    'POST /api/v1/webhooks/{id}/rotate-secret',
  ],
  /** The API description: a route without authentication (it serves a static document, no workspace data). */
  openapi: ['GET /api/v1/openapi.json'],
  /** A workload's login with AWS IAM or OIDC: the other route without a bearer token (it is how a workload gets one). */
  auth: ['POST /api/v1/auth/login'],
  /**
   * The AWS Secrets Manager API (AWS JSON 1.1, SigV4; decisions.md v1.3): one route, the operation named by the
   * X-Amz-Target header. Not in the OpenAPI document: AWS's own service model describes it.
   */
  aws: ['POST /'],
  'webhook-deliveries': [
    'GET /api/v1/webhook-deliveries',
    'GET /api/v1/webhook-deliveries/{id}',
    'POST /api/v1/webhook-deliveries/{id}/retry',
    'POST /api/v1/webhooks/{id}/test',
    'POST /api/v1/webhooks/{id}/recover',
    'GET /api/v1/webhooks/{id}/stats',
  ],
  /** Change requests (decisions.md v1.4): proposed changes to an environment's secrets, reviewed, merged at once. */
  'change-requests': [
    'POST /api/v1/change-requests',
    'GET /api/v1/change-requests',
    'GET /api/v1/change-requests/{id}',
    'POST /api/v1/change-requests/{id}/changes/{key}/reveal',
    'POST /api/v1/change-requests/{id}/reviews',
    'POST /api/v1/change-requests/{id}/merge',
    'POST /api/v1/change-requests/{id}/close',
  ],
  /** Syncs (decisions.md v1.4): an environment's values pushed to GitHub Actions, Parameter Store or Secrets Manager. */
  syncs: [
    'POST /api/v1/syncs',
    'GET /api/v1/syncs',
    'GET /api/v1/syncs/{id}',
    'PATCH /api/v1/syncs/{id}',
    'DELETE /api/v1/syncs/{id}',
    'POST /api/v1/syncs/{id}/run',
  ],
  /** Audit streams (decisions.md v1.4): the workspace's audit entries delivered to an https receiver, Splunk or Datadog. */
  'audit-streams': [
    'POST /api/v1/audit-streams',
    'GET /api/v1/audit-streams',
    'GET /api/v1/audit-streams/{id}',
    'PATCH /api/v1/audit-streams/{id}',
    'DELETE /api/v1/audit-streams/{id}',
    'POST /api/v1/audit-streams/{id}/test',
  ],
} as const satisfies Record<string, readonly string[]>;

export type RouteGroup = keyof typeof ROUTE_GROUPS;

/** Where the web console is served: the local front and CloudFront both put it under this path, and its build links it. */
export const CONSOLE_BASE = '/console';
