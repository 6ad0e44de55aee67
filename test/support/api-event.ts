import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** What a test sets of a request; everything else is as API Gateway (HTTP API, payload format 2.0) would send it. */
export interface ApiEventOptions {
  /** A bearer token: sent as `authorization: Bearer <token>`. */
  token?: string;
  /** The authorization header as the client sent it; wins over `token`. */
  authorization?: string;
  /** More request headers; their names are lower-cased, as API Gateway does. An undefined value sends no header. */
  headers?: Record<string, string | undefined>;
  body?: string;
  /** The body is base64 (API Gateway encodes a body that is not text). */
  isBase64Encoded?: boolean;
  pathParameters?: Record<string, string>;
  /** The query string's parameters (`queryStringParameters`, and `rawQueryString` from them). */
  query?: Record<string, string>;
  /** The path as sent; by default the route key's, each `{name}` filled in from `pathParameters`. */
  rawPath?: string;
}

const API_ID = 'a1b2c3d4e5';
const DOMAIN = `${API_ID}.execute-api.eu-west-1.amazonaws.com`;
const USER_AGENT = 'vitest';
/** A documentation address (TEST-NET-3), as the caller's. */
const SOURCE_IP = '203.0.113.7';

/** The path a route key matches, each `{name}` filled in from `params` (left as is when it has none). */
function pathOf(routeKeyPath: string, params: Record<string, string>): string {
  return routeKeyPath.replace(/\{([^}+]+)\+?\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : encodeURIComponent(params[name]),
  );
}

/** API Gateway's `requestContext.time`: `12/Mar/2020:19:03:58 +0000`. */
function requestTime(at: Date): string {
  const [, day, month, year, time] = /^\w+, (\d\d) (\w+) (\d+) ([\d:]+) GMT$/.exec(at.toUTCString())!;
  return `${day}/${month}/${year}:${time} +0000`;
}

/** The request headers: API Gateway's own, then the test's, every name lower-cased. */
function headersOf(options: ApiEventOptions): Record<string, string> {
  const authorization = options.authorization ?? (options.token === undefined ? undefined : `Bearer ${options.token}`);
  const given: Record<string, string | undefined> = {
    ...(authorization === undefined ? {} : { authorization }),
    ...(options.body === undefined
      ? {}
      : { 'content-length': String(Buffer.byteLength(options.body, options.isBase64Encoded ? 'base64' : 'utf8')) }),
    ...options.headers,
  };
  const headers: Record<string, string> = {
    host: DOMAIN,
    'user-agent': USER_AGENT,
    'x-amzn-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    'x-forwarded-for': SOURCE_IP,
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
  };
  for (const [name, value] of Object.entries(given)) if (value !== undefined) headers[name.toLowerCase()] = value;
  return headers;
}

/**
 * A full API Gateway HTTP API event (payload format 2.0) for `routeKey` (`'POST /api/v1/reveal'`): lower-cased
 * headers, `requestContext.http` with the method, path and caller's address, a fresh `requestId`, and `rawPath` from
 * the route key unless given. Path parameters, query and body appear only when given, as API Gateway sends them.
 */
export function apiEvent(routeKey: string, options: ApiEventOptions = {}): APIGatewayProxyEventV2 {
  const [method = 'GET', routePath = '/'] = routeKey.split(' ');
  const rawPath = options.rawPath ?? pathOf(routePath, options.pathParameters ?? {});
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: new URLSearchParams(options.query).toString(),
    headers: headersOf(options),
    ...(options.query === undefined ? {} : { queryStringParameters: options.query }),
    ...(options.pathParameters === undefined ? {} : { pathParameters: options.pathParameters }),
    requestContext: {
      accountId: '123456789012',
      apiId: API_ID,
      domainName: DOMAIN,
      domainPrefix: API_ID,
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: SOURCE_IP, userAgent: USER_AGENT },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: options.isBase64Encoded ?? false,
    ...(options.body === undefined ? {} : { body: options.body }),
  };
}

/** A Lambda context for calling a handler in a test: 10 seconds left, whatever the clock says. */
export function lambdaContext(): Context {
  const functionName = 'test-function';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/01/01/[$LATEST]0123456789abcdef0123456789abcdef',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
