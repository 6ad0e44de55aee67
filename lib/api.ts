import { CfnOutput, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { handlerEntry, ROUTE_GROUPS, type RouteGroup } from '../shared/routes.ts';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { ServiceFunction, type TableAccess } from './service-function.ts';

/** The name every function logs under (`SERVICE_NAME` in shared/config.ts). */
const SERVICE_NAME = 'secrets-service';

/** Access log line: who called which route and how it went. Never the body, the query or any header value. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTimeEpoch',
    routeKey: '$context.routeKey',
    status: '$context.status',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    latency: '$context.responseLatency',
    integrationLatency: '$context.integration.latency',
    integrationStatus: '$context.integration.status',
    errorMessage: '$context.error.message',
  }),
);

export interface JwtSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri: string;
  /** Claim holding the caller's workspace id. @default the function's own default (`workspace_id`) */
  readonly workspaceClaim?: string;
}

/** What each route group may touch: its table access, and whether it encrypts with the secrets key. */
const GROUP_ACCESS: Record<RouteGroup, { table: TableAccess; secretsKey?: true }> = {
  projects: { table: 'readWrite' },
  environments: { table: 'readWrite' },
  secrets: { table: 'readWrite', secretsKey: true },
  audit: { table: 'read' },
  'access-keys': { table: 'readWrite' },
  webhooks: { table: 'readWrite' },
  'webhook-deliveries': { table: 'readWrite' },
};

export interface ApiConstructProps {
  readonly table: Table;
  readonly secretsKey: IKey;
  /** Reveals per minute per credential. @default the functions' own default (120) */
  readonly revealsPerMinute?: number;
  /** Access tokens from this identity provider are accepted besides API tokens. @default API tokens only */
  readonly jwt?: JwtSettings;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The HTTP API: one function per route group of `ROUTE_GROUPS` and exactly the routes of that group. There is no
 * authorizer (the functions authenticate) and no `$default` route, so an unknown path gets API Gateway's own 404.
 */
export class ApiConstruct extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly functions: Record<RouteGroup, ServiceFunction>;

  constructor(scope: Construct, id: string, props: ApiConstructProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', { apiName: Stack.of(this).stackName, createDefaultStage: false });
    Validations.of(this.httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'Each function authenticates the caller (API token or JWT) before any work; an authorizer would duplicate it.',
    });
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(
          new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy }),
        ),
        format: ACCESS_LOG_FORMAT,
      },
    });
    const groups = Object.keys(ROUTE_GROUPS) as RouteGroup[];
    this.functions = Object.fromEntries(groups.map((group) => [group, this.addRouteGroup(group, props)])) as Record<
      RouteGroup,
      ServiceFunction
    >;
    new CfnOutput(this, 'ApiUrl', { value: this.stage.url });
  }

  /** Creates the group's function with the access `GROUP_ACCESS` gives it, and the group's routes. */
  private addRouteGroup(group: RouteGroup, props: ApiConstructProps): ServiceFunction {
    const fn = new ServiceFunction(this, `${pascalCase(group)}Function`, {
      entry: handlerEntry(group),
      environment: functionEnvironment(props),
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    const access = GROUP_ACCESS[group];
    fn.bindTable(props.table, access.table);
    if (access.secretsKey) fn.bindSecretsKey(props.secretsKey);
    const integration = new HttpLambdaIntegration(`${pascalCase(group)}Integration`, fn.function, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    for (const routeKey of ROUTE_GROUPS[group]) {
      const { method, path } = parseRouteKey(routeKey);
      this.httpApi.addRoutes({ path, methods: [method], integration });
    }
    return fn;
  }
}

function functionEnvironment(props: ApiConstructProps): Record<string, string> {
  const jwt = props.jwt;
  return {
    TABLE_NAME: props.table.tableName,
    SERVICE_NAME,
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    ...(jwt && { JWT_ISSUER: jwt.issuer, JWT_AUDIENCE: jwt.audience, JWT_JWKS_URI: jwt.jwksUri }),
    ...(jwt?.workspaceClaim && { JWT_WORKSPACE_CLAIM: jwt.workspaceClaim }),
    ...(props.revealsPerMinute !== undefined && { REVEAL_RATE_LIMIT_PER_MINUTE: String(props.revealsPerMinute) }),
  };
}

/** Splits a route key such as `GET /api/v1/projects` into its method and path. */
function parseRouteKey(routeKey: string): { method: HttpMethod; path: string } {
  const [method = '', path = '', ...rest] = routeKey.split(' ');
  if (!(method in HttpMethod) || !path.startsWith('/') || rest.length > 0) {
    throw new Error(`Invalid route key "${routeKey}": expected "METHOD /path"`);
  }
  return { method: HttpMethod[method as keyof typeof HttpMethod], path };
}

function pascalCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}
