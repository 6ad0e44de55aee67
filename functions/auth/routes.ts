import { defineRoute, lazyRoutes, type RouteDefinition } from '../../shared/platform/http/route.ts';
import type { ROUTE_GROUPS } from '../../shared/platform/routes.ts';
import { loginAnswer, loginBodySchema, type LoginService } from '../../shared/access/login-wiring.ts';

type RouteKey = (typeof ROUTE_GROUPS)['auth'][number];

/** The auth route group: a workload trades proof of its identity for a short-lived token; no bearer token needed. */
export function makeAuthRoutes(service: LoginService): Record<RouteKey, RouteDefinition> {
  return lazyRoutes({
    'POST /api/v1/auth/login': () =>
      defineRoute({
        operationId: 'login',
        summary: 'Log a workload in with AWS IAM or OIDC for a short-lived token',
        description: [
          "Without `Authorization`. `method` `aws_iam`: `signedRequest` is an STS GetCallerIdentity request signed with SigV4 by the workload's own AWS credentials, carrying the signed header `x-service-server-id` (this deployment's server id); the service sends it to STS itself and matches the caller's role or user ARN against the key's `principalArns`.",
          "`method` `oidc`: `jwt` is an RS256 or ES256 token of the key's issuer (at most 16 KiB) whose `aud`, `sub` and `claims` match the key.",
          "The answer's `st_` token carries the key's permissions and allowedCidrs and is valid until `expiresAt` (the key's `tokenTtlSeconds`, never past the key's own expiry); revoking or changing the key reaches it.",
          'Any refusal is AUTH_REQUIRED naming the failed check (audited as `access_key.login_denied` for an existing key); a good login is audited as `access_key.login`. Per access key and clock minute: at most 10 refused logins per source address and 60 successful ones; past either, RATE_LIMITED with Retry-After before any check, not audited.',
        ].join(' '),
        response: loginAnswer(),
        errors: ['RATE_LIMITED'],
        access: 'public',
        body: loginBodySchema(),
        handler: async ({ body, sourceIp }) => ({ data: await service.login(body, { sourceIp }) }),
      }),
  });
}
