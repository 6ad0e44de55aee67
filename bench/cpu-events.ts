// What the CPU bench (bench/cpu-child.ts) hands the real handler: the events and the context Lambda would.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** The host the bench's events are addressed to (a signed event signs it). */
export const API_HOST = 'api.example.com';

/** The headers API Gateway adds to a request it passes on (after the client signed it: they are never signed). */
export const GATEWAY_HEADERS = () => ({
  'x-amzn-trace-id': `Root=1-${randomUUID()}`,
  'x-forwarded-for': '203.0.113.10',
  'x-forwarded-port': '443',
  'x-forwarded-proto': 'https',
});

/** The headers of an SDK request as API Gateway passes them on. */
export const API_HEADERS = (token: string) => ({
  accept: 'application/json',
  'accept-encoding': 'gzip, deflate, br',
  authorization: `Bearer ${token}`,
  'content-length': '0',
  host: API_HOST,
  'user-agent': 'secrets-sdk/0.1.0 node/24',
  ...GATEWAY_HEADERS(),
});

/** The payload 2.0 event API Gateway sends, as the local front builds it. */
export function apiEvent(routeKey: string, token: string, extra: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  const [method, path] = routeKey.split(' ') as [string, string];
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: API_HEADERS(token),
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: API_HOST,
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.10', userAgent: 'secrets-sdk/0.1.0 node/24' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
    ...extra,
  };
}

/** The context Lambda passes with an invocation (10 s, the API functions' timeout, from its first use: made ahead). */
export function lambdaContext(): Context {
  let deadline: number | undefined;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'secrets',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:secrets',
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/secrets',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, (deadline ??= Date.now() + 10_000) - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
