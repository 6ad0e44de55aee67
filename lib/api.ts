import { CfnOutput, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  type CorsPreflightOptions,
  HttpApi,
  HttpMethod,
  type HttpRoute,
  type HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_FUNCTION, handlerEntry } from '../shared/platform/functions.ts';
import { ROUTE_GROUPS, type RouteGroup } from '../shared/platform/routes.ts';
import { ROUTE_GROUP_ACCESS } from './access.ts';
import { applyAccess, type DigestKeyReader, type QueueSender } from './apply-access.ts';
import { pascalCase, ServiceFunction } from './service-function.ts';
import { REVEAL_ROUTE_KEYS } from './service-metrics.ts';

/**
 * Access log line: who called which route and how it went. Never the body, the query string, a path parameter's
 * value or any header besides the user agent (so never Authorization). `apiId` and `routeKey` feed the
 * reveals-per-minute metric filter (lib/monitoring.ts).
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    apiId: '$context.apiId',
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
  readonly workspaceClaim?: string | undefined;
  /** The `typ` an access token must carry (e.g. `at+jwt`), so ID tokens are refused. @default any */
  readonly requiredType?: string | undefined;
  /** Claim holding a person's role (`admin`, `developer`, `viewer`). @default the function's own default (`roles`) */
  readonly roleClaim?: string | undefined;
  /** A person's role when the claim names none. @default the function's own default (`viewer`) */
  readonly defaultRole?: 'admin' | 'developer' | 'viewer' | undefined;
}

export interface ApiConstructProps {
  readonly table: ITable;
  /** The key that wraps secret values and webhook signing secrets. */
  readonly key: IKey;
  /** The key's alias, which the AWS API accepts as a `KmsKeyId` naming the stack's own key. */
  readonly keyAlias?: string | undefined;
  /** Where the webhook-deliveries group queues manual retries. */
  readonly deliveries: QueueSender;
  /** Where the secrets group and the AWS API queue a rotation's first step. */
  readonly rotations: QueueSender;
  /** Where the syncs group queues a full push (a new sync, `run`, `resume`). */
  readonly syncs: QueueSender;
  /** The audit digest key, whose public key the audit group answers (GET /api/v1/audit/public-key). */
  readonly digestKey: DigestKeyReader;
  /** Reveals per minute per credential. @default the functions' own default (120) */
  readonly revealsPerMinute?: number;
  /** Reveals per minute of a whole workspace. @default the functions' own default (10 times the above) */
  readonly workspaceRevealsPerMinute?: number | undefined;
  /** Stage throttling of the reveal routes alone, below the API-wide one. */
  readonly revealRouteThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  /** Concurrency reserved for each API function, so one route group cannot starve the others. @default none */
  readonly reservedConcurrency?: number | undefined;
  /** Stage throttling of the login route alone (it is the one route a caller reaches without a token). */
  readonly loginRouteThrottle: { readonly rateLimit: number; readonly burstLimit: number };
  /** The server id an IAM login must sign (`x-service-server-id`). @default the API's own host name */
  readonly iamServerId?: string | undefined;
  /** Access tokens from this identity provider are accepted besides API tokens. @default API tokens only */
  readonly jwt?: JwtSettings;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** The web console's origin (`https://<host>`), the one origin whose pages may call the API. @default no CORS */
  readonly consoleOrigin?: string | undefined;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The HTTP API: one function per route group of `ROUTE_GROUPS` and exactly the routes of that group, each granted
 * what `ROUTE_GROUP_ACCESS` lists. There is no authorizer (the functions authenticate) and no `$default` route, so
 * an unknown path gets API Gateway's own generic 404 before any function runs.
 */
export class ApiConstruct extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly functions: Record<RouteGroup, ServiceFunction>;

  constructor(scope: Construct, id: string, props: ApiConstructProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: Stack.of(this).stackName,
      createDefaultStage: false,
      corsPreflight: props.consoleOrigin === undefined ? undefined : consoleCors(props.consoleOrigin),
    });
    Validations.of(this.httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'Each function authenticates the caller (API token or JWT) before any work; an authorizer would duplicate it.',
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    this.stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: ACCESS_LOG_FORMAT },
    });
    const groups = Object.keys(ROUTE_GROUPS) as RouteGroup[];
    const routes = new Map<string, HttpRoute>();
    this.functions = Object.fromEntries(groups.map((group) => [group, this.addRouteGroup(group, props, routes)])) as Record<
      RouteGroup,
      ServiceFunction
    >;
    this.throttleRoutes(
      [
        [REVEAL_ROUTE_KEYS, props.revealRouteThrottle],
        [[LOGIN_ROUTE_KEY], props.loginRouteThrottle],
      ],
      routes,
    );
    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL; routes are under /api/v1' }).overrideLogicalId('ApiUrl');
  }

  /**
   * The reveal routes get their own, lower limit: a flood of reveals cannot take the whole API's share; so does the
   * login route, which anyone can reach without a token. API Gateway refuses a stage whose route settings name a
   * route that does not exist yet ("Unable to find Route by key ... within the provided RouteSettings"), and nothing
   * else orders the stage after the routes (they wait for their functions, the stage only for the API), so the stage
   * depends on those routes' AWS::ApiGatewayV2::Route resources (not on their Lambda permissions). A route key that
   * no group serves fails the synth here rather than the deploy.
   */
  private throttleRoutes(
    throttles: readonly (readonly [readonly string[], { readonly rateLimit: number; readonly burstLimit: number }])[],
    routes: ReadonlyMap<string, HttpRoute>,
  ): void {
    const settings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    for (const [routeKeys, throttle] of throttles) {
      for (const routeKey of routeKeys) {
        const route = routes.get(routeKey);
        if (!route) throw new Error(`Throttled route "${routeKey}" is not a route of ROUTE_GROUPS (shared/platform/routes.ts)`);
        this.stage.node.addDependency(route.node.defaultChild ?? route);
        settings[routeKey] = { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit };
      }
    }
    (this.stage.node.defaultChild as CfnStage).routeSettings = settings;
  }

  /**
   * The login function's settings: the stack's regional STS endpoint (the one AWS recommends; the partition's own
   * domain, so China and GovCloud work too) and the server id a login must sign, by default this API's host name.
   * It authenticates no bearer token, so it needs no JWT settings.
   */
  private loginEnvironment(props: ApiConstructProps): Record<string, string> {
    const { region, urlSuffix } = Stack.of(this);
    return {
      AWS_STS_ENDPOINT: `https://sts.${region}.${urlSuffix}/`,
      IAM_SERVER_ID: props.iamServerId ?? `${this.httpApi.apiId}.execute-api.${region}.${urlSuffix}`,
    };
  }

  /** Creates the group's function with the access `ROUTE_GROUP_ACCESS` gives it, and its routes (into `routes`, by key). */
  private addRouteGroup(group: RouteGroup, props: ApiConstructProps, routes: Map<string, HttpRoute>): ServiceFunction {
    const fn = new ServiceFunction(this, `${pascalCase(group)}Function`, {
      entry: handlerEntry(group),
      timeout: Duration.seconds(API_FUNCTION.timeoutSeconds),
      memorySize: API_FUNCTION.memoryMb,
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment: group === 'auth' ? this.loginEnvironment(props) : functionEnvironment(group, props),
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    applyAccess(fn, ROUTE_GROUP_ACCESS[group], {
      table: props.table,
      key: props.key,
      deliveries: props.deliveries,
      rotations: props.rotations,
      syncs: props.syncs,
      digestKey: props.digestKey,
    });
    const integration = new HttpLambdaIntegration(`${pascalCase(group)}Integration`, fn.function, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    for (const routeKey of ROUTE_GROUPS[group]) {
      const { method, path } = parseRouteKey(routeKey);
      const [route] = this.httpApi.addRoutes({ path, methods: [method], integration });
      if (route) routes.set(routeKey, route);
    }
    return fn;
  }
}

/**
 * What the console's pages may do across origins: the methods and request headers the SDK's client sends (the
 * token in Authorization, never a cookie: no credentials), and the answer headers it reads (a 429's Retry-After,
 * the request id an error names). API Gateway answers the preflight itself.
 */
function consoleCors(origin: string): CorsPreflightOptions {
  return {
    allowOrigins: [origin],
    allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.PUT, CorsHttpMethod.PATCH, CorsHttpMethod.DELETE],
    allowHeaders: ['authorization', 'content-type', 'if-match', 'idempotency-key'],
    exposeHeaders: ['retry-after', 'x-request-id'],
    allowCredentials: false,
    maxAge: Duration.hours(1),
  };
}

/** The route a caller reaches without a token: throttled on its own. */
const LOGIN_ROUTE_KEY = 'POST /api/v1/auth/login';

/** Every API function but the login's and the AWS API's takes JWTs, so each gets the JWT settings; two groups reveal. */
function functionEnvironment(group: RouteGroup, props: ApiConstructProps): Record<string, string> {
  // The AWS API authenticates SigV4 signatures only (no JWT), reveals, and names the stack's account in its ARNs.
  if (group === 'aws')
    return {
      ...revealLimits(props),
      AWS_ACCOUNT_ID: Stack.of(props.table).account,
      ...(props.keyAlias !== undefined && { KMS_KEY_ALIAS: props.keyAlias }),
    };
  const jwt = props.jwt;
  return {
    ...(jwt && { JWT_ISSUER: jwt.issuer, JWT_AUDIENCE: jwt.audience, JWT_JWKS_URI: jwt.jwksUri }),
    ...(jwt?.workspaceClaim && { JWT_WORKSPACE_CLAIM: jwt.workspaceClaim }),
    ...(jwt?.requiredType && { JWT_REQUIRED_TYPE: jwt.requiredType }),
    ...(jwt?.roleClaim && { JWT_ROLE_CLAIM: jwt.roleClaim }),
    ...(jwt?.defaultRole && { JWT_DEFAULT_ROLE: jwt.defaultRole }),
    // A change request's proposed value is a reveal too: it counts against the same limits.
    ...((group === 'secrets' || group === 'change-requests') && revealLimits(props)),
  };
}

/** The reveal limits of a function that reveals (the secrets group and the AWS API share the same leases). */
function revealLimits(props: ApiConstructProps): Record<string, string> {
  return {
    ...(props.revealsPerMinute !== undefined && { REVEAL_RATE_LIMIT_PER_MINUTE: String(props.revealsPerMinute) }),
    ...(props.workspaceRevealsPerMinute !== undefined && {
      REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE: String(props.workspaceRevealsPerMinute),
    }),
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
