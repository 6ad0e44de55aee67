import { isUtf8 } from 'node:buffer';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { serveConsole, type ConsoleSite } from './console-site.ts';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { localLambdaContext } from './sqs-poller.ts';
import { attributeCalls } from './instrumentation.ts';

/** A Lambda handler as API Gateway calls it. */
export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface FrontRoute {
  routeKey: string;
  functionName: string;
  handler: LambdaHandler;
}

interface CompiledRoute extends FrontRoute {
  method: string;
  segments: string[];
}

/** API Gateway HTTP API's own bodies for answers that never reach a Lambda. */
const GATEWAY = {
  notFound: { status: 404, body: { message: 'Not Found' } },
  tooLarge: { status: 413, body: { message: 'Request Entity Too Large' } },
  internal: { status: 500, body: { message: 'Internal Server Error' } },
  unavailable: { status: 503, body: { message: 'Service Unavailable' } },
};

const MAX_PAYLOAD = 10 * 1024 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i;

function compile(route: FrontRoute): CompiledRoute {
  const [method, path] = route.routeKey.split(' ') as [string, string];
  return { ...route, method, segments: path.split('/').slice(1) };
}

/**
 * Matches like API Gateway: same method and segment count; at the first segment where candidates differ, a
 * literal segment beats a `{param}`. Answers the route and its decoded path parameters.
 */
export function matchRoute(routes: readonly CompiledRoute[], method: string, path: string) {
  const parts = path.split('/').slice(1);
  const candidates = routes.filter(
    (route) =>
      route.method === method &&
      route.segments.length === parts.length &&
      // A {param} takes one segment that is not empty, as API Gateway's: `/projects/` is no `/projects/{projectId}`.
      route.segments.every((segment, i) => (segment.startsWith('{') ? parts[i] !== '' : segment === parts[i])),
  );
  const rank = (route: CompiledRoute) => route.segments.map((s) => (s.startsWith('{') ? '1' : '0')).join('');
  const best = candidates.sort((a, b) => rank(a).localeCompare(rank(b)))[0];
  if (!best) return undefined;
  const params: Record<string, string> = {};
  try {
    best.segments.forEach((segment, i) => {
      if (segment.startsWith('{')) params[segment.slice(1, -1)] = decodeURIComponent(parts[i] ?? '');
    });
  } catch {
    return undefined;
  }
  return { route: best, params };
}

async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAYLOAD) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The payload format 2.0 event API Gateway would send for this request. */
function buildEvent(request: IncomingMessage, url: URL, route: CompiledRoute, params: Record<string, string>, body: Buffer) {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (name !== 'cookie' && values) headers[name] = values.join(',');
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = new Date();
  // A text type passes as a string only when its bytes are UTF-8: decoding others would turn them into U+FFFD, and
  // the function could not tell. As base64 they reach its strict decoder, which refuses them (VALIDATION_ERROR).
  const isText = TEXT_TYPES.test(headers['content-type'] ?? '') && isUtf8(body);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(request.headers.cookie ? { cookies: request.headers.cookie.split(/;\s*/) } : {}),
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method: route.method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        // The address of the connection, as API Gateway gives it (an IPv4 peer as IPv4, not as ::ffff:a.b.c.d); never
        // X-Forwarded-For, which the caller writes.
        sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: body.length > 0 && !isText,
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
  };
  return event;
}

function send(response: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer): void {
  response.writeHead(status, { ...headers, 'apigw-requestid': randomUUID() });
  response.end(body);
}

/** Writes a Lambda result the way API Gateway maps payload 2.0 responses. */
function writeResult(response: ServerResponse, result: unknown): void {
  if (result && typeof result === 'object' && 'statusCode' in result) {
    const r = result as {
      statusCode: number;
      headers?: Record<string, string>;
      body?: string;
      isBase64Encoded?: boolean;
      cookies?: string[];
    };
    const headers: Record<string, string> = { ...(r.headers ?? {}) };
    if (r.cookies?.length) response.setHeader('set-cookie', r.cookies);
    send(response, r.statusCode, headers, r.body ? Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8') : '');
    return;
  }
  send(response, 200, { 'content-type': 'application/json' }, JSON.stringify(result ?? null));
}

function gateway(response: ServerResponse, answer: { status: number; body: object }): void {
  send(response, answer.status, { 'content-type': 'application/json' }, JSON.stringify(answer.body));
}

export interface HttpFront {
  url: string;
  close(): Promise<void>;
}

/**
 * A local stand-in for API Gateway HTTP API: matches routes, answers the generic 404 for anything else before any
 * Lambda runs, builds payload 2.0 events, enforces the Lambda timeout (503) and maps results back.
 */
export async function startHttpFront(options: {
  port: number;
  host?: string;
  /** The routes, or a function that loads them once the front listens and knows its own URL. */
  routes: FrontRoute[] | ((url: string) => Promise<FrontRoute[]>);
  timeoutMs?: number;
  /** The web console under `/console/`, same origin as the API. */
  console?: ConsoleSite;
}): Promise<HttpFront> {
  let routes = Array.isArray(options.routes) ? options.routes.map(compile) : [];
  const timeoutMs = options.timeoutMs ?? 10_000;
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (options.console && serveConsole(options.console, request, response, url.pathname)) return;
      const matched = matchRoute(routes, request.method ?? 'GET', url.pathname);
      if (!matched) return gateway(response, GATEWAY.notFound);
      const body = await readBody(request);
      if (body === 'too-large') return gateway(response, GATEWAY.tooLarge);
      const event = buildEvent(request, url, matched.route, matched.params, body);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      const invocation = attributeCalls(matched.route.routeKey, () =>
        matched.route.handler(event, localLambdaContext(matched.route.functionName, timeoutMs)),
      );
      const result = await Promise.race([invocation, timeout]).finally(() => clearTimeout(timer));
      if (result === 'timeout') return gateway(response, GATEWAY.unavailable);
      writeResult(response, result);
    } catch {
      gateway(response, GATEWAY.internal);
    }
  });
  server.listen(options.port, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  if (!Array.isArray(options.routes)) {
    try {
      routes = (await options.routes(url)).map(compile);
    } catch (error) {
      server.close();
      throw error;
    }
  }
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
