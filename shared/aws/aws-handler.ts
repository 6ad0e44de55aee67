import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type * as core from 'zod/v4/core';
import type { SigV4Authenticator } from '../access/index.ts';
import type { Authenticated } from '../platform/http/authentication.ts';
import { mappedFramesOf, requestLogger, type RequestLog } from '../platform/logger.ts';
import { parseInput } from '../platform/http/validation.ts';
import type { ItemKey, Prefetched } from '../platform/prefetch.ts';
import type { Principal } from '../platform/principal.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import { runThroughInterface } from '../platform/request-interface.ts';
import { AwsError, toAwsError } from './aws-errors.ts';
import {
  checkScope,
  isRefusal,
  parseAuthorization,
  signatureHolds,
  type SignedRequest,
  type SigningService,
  type SigV4Authorization,
  type SigV4Refusal,
} from './sigv4.ts';

/**
 * The AWS Secrets Manager API's one route, `POST /` (decisions.md, "The AWS Secrets Manager API"): AWS JSON 1.1 in
 * and out. A request is read (its body base64-decoded as API Gateway hands this content type over), its SigV4
 * signature checked (shared/aws/sigv4.ts) against the access key it names (shared/access/sigv4-credentials.ts), and
 * its operation (`X-Amz-Target: secretsmanager.<Operation>`) run with the caller's principal through the same
 * services as REST, marked as made through the AWS interface (its audit entries say so). Every error leaves through
 * one table (aws-errors.ts) with `x-amzn-RequestId` and `x-amzn-ErrorType`, as AWS sends them. STS's
 * GetCallerIdentity shares the route and the authentication (decisions.md, "STS at the same endpoint"): its Query
 * protocol, answers and errors are in sts-query.ts, a chunk loaded on the first STS request.
 */

type ApiEvent = APIGatewayProxyEventV2;
type ApiResult = APIGatewayProxyStructuredResultV2;

/** One operation: its input schema (AWS's field names) and what it does for a principal. */
export interface AwsOperation<S extends core.$ZodType = core.$ZodType> {
  input: S;
  /**
   * Items to read with the credential, from the request's JSON before it is checked (a reveal's secret, read
   * eventually consistently beside the key, as REST's reveal does): never trusted, only read.
   */
  prefetch?(workspaceId: string, raw: Record<string, unknown>): readonly ItemKey[];
  handle(principal: Principal, input: core.output<S>, log: RequestLog, prefetched?: Prefetched): Promise<object>;
}

/**
 * An operation loaded on its first call: its code sits in a chunk of its own that a cold start does not read
 * (functions/aws/handler.ts keeps only GetSecretValue in the first one). It reads nothing ahead with the key.
 */
export interface LazyOperation {
  load(): Promise<AwsOperation>;
}

/** Defines an operation, its input's type inferred from its schema. */
export const defineOperation = <S extends core.$ZodType>(operation: AwsOperation<S>): AwsOperation => operation as unknown as AwsOperation;

/** Operations of AWS's API this service does not serve: InvalidRequestException, naming it. */
export const UNSUPPORTED_OPERATIONS = new Set(['ReplicateSecretToRegions', 'RemoveRegionsFromReplication', 'StopReplicationToReplica']);

const MAX_BODY_BYTES = 256 * 1024;
const CONTENT_TYPE = 'application/x-amz-json-1.1';

export interface AwsHandlerDeps {
  authenticate: SigV4Authenticator;
  operations: Readonly<Record<string, AwsOperation | LazyOperation>>;
  /** The region requests must be signed for. */
  region: string;
  /** The stack's AWS account: STS's GetCallerIdentity answers it. */
  account: string;
  now: () => number;
}

/** STS's Query protocol: code only an STS request runs, so a chunk of its own (lib/lambda-bundle.ts). */
const stsQuery = loadOnce(() => import('./sts-query.ts'));

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/**
 * Which protocol a request speaks, before anything is checked, so that even its refusal is in a form its client
 * reads: an `X-Amz-Target` is Secrets Manager's (AWS JSON 1.1); without one, a form body or a signature scoped to
 * `sts` is STS's Query protocol. The signature must then be for that protocol's service (checkScope).
 */
export function protocolOf(headers: Record<string, string>, auth: SigV4Authorization | SigV4Refusal): SigningService {
  if (headers['x-amz-target'] !== undefined) return 'secretsmanager';
  const stsScoped = !isRefusal(auth) && auth.service === 'sts';
  return stsScoped || FORM.test(headers['content-type'] ?? '') ? 'sts' : 'secretsmanager';
}

function answer(requestId: string, status: number, body: object, errorType?: string): ApiResult {
  return {
    statusCode: status,
    headers: {
      'content-type': CONTENT_TYPE,
      'x-amzn-requestid': requestId,
      'cache-control': 'no-store',
      ...(errorType && { 'x-amzn-errortype': errorType }),
    },
    body: JSON.stringify(body),
  };
}

const headersOf = (event: ApiEvent): Record<string, string> =>
  Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value ?? '']));

/** The request as it was signed: lower-case header names, the body's bytes as the client sent them. */
function signedRequestOf(event: ApiEvent, headers: Record<string, string>): SignedRequest {
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  if (body.length > MAX_BODY_BYTES)
    throw new AwsError('InvalidRequestException', `The request body must be at most ${MAX_BODY_BYTES} bytes.`);
  const query = Object.fromEntries(new URLSearchParams(event.rawQueryString ?? ''));
  return { method: event.requestContext.http.method, path: event.rawPath || '/', query, headers, body };
}

/** The operation the target names, or the error AWS answers for it. */
function operationOf(target: string | undefined, operations: AwsHandlerDeps['operations']): [string, AwsOperation | LazyOperation] {
  const name = /^secretsmanager\.([A-Za-z]{1,64})$/.exec(target ?? '')?.[1];
  if (name !== undefined && Object.hasOwn(operations, name)) return [name, operations[name]!];
  if (name !== undefined && UNSUPPORTED_OPERATIONS.has(name)) {
    throw new AwsError('InvalidRequestException', `${name} is not supported by this service.`);
  }
  throw new AwsError('UnknownOperationException', `The operation ${JSON.stringify(target ?? '')} is not known.`);
}

/** The JSON object of the body (an empty body is `{}`, as the SDKs send for operations without input). */
function inputOf(body: Buffer): unknown {
  if (body.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new AwsError('SerializationException', 'The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AwsError('SerializationException', 'The request body must be a JSON object.');
  }
  return parsed;
}

/** The keys the request's operation reads ahead, if it is one that does and its body is a JSON object; else none. */
function prefetchOf(request: SignedRequest, operations: AwsHandlerDeps['operations']) {
  return (workspaceId: string): readonly ItemKey[] => {
    try {
      const [, chosen] = operationOf(request.headers['x-amz-target'], operations);
      return 'prefetch' in chosen && chosen.prefetch ? chosen.prefetch(workspaceId, inputOf(request.body) as Record<string, unknown>) : [];
    } catch {
      return [];
    }
  };
}

/** Checks the request's signature for its protocol's service and the key it names: the caller, once admitted. */
async function authenticated(
  deps: AwsHandlerDeps,
  event: ApiEvent,
  request: SignedRequest,
  auth: SigV4Authorization,
  service: SigningService,
) {
  const signingDate = checkScope(request, auth, { region: deps.region, service, now: deps.now() });
  if (!(signingDate instanceof Date)) throw new AwsError(signingDate.type, signingDate.message);
  const sessionToken = request.headers['x-amz-security-token'];
  // What the operation reads ahead comes along with the key's read; its errors wait until the key is checked.
  const early = service === 'secretsmanager' ? prefetchOf(request, deps.operations) : () => [];
  return deps.authenticate(
    {
      accessKeyId: auth.accessKeyId,
      sessionToken,
      signedWith: (secretAccessKey) => signatureHolds(request, auth, { secretAccessKey, sessionToken }, signingDate),
    },
    early,
    { sourceIp: event.requestContext.http.sourceIp },
  );
}

/** Runs a Secrets Manager operation through the AWS interface: its input checked, its output as AWS JSON. */
async function runOperation(named: AwsOperation | LazyOperation, request: SignedRequest, caller: Authenticated, log: RequestLog) {
  const chosen = 'load' in named ? await named.load() : named;
  const input = parseInput(chosen.input, inputOf(request.body));
  return runThroughInterface('aws', () => chosen.handle(caller.principal, input, log, caller.prefetched));
}

/** The error's answer in the request's protocol; an unexpected one is logged by its name and frames only. */
async function errorAnswer(thrown: unknown, protocol: SigningService, requestId: string, log: RequestLog): Promise<ApiResult> {
  const error = toAwsError(thrown);
  if (error.status >= 500)
    log.error('unhandled error', {
      errorName: (thrown as Error | undefined)?.name,
      frames: await mappedFramesOf(thrown),
    });
  if (protocol === 'sts') return (await stsQuery()).stsErrorAnswer(error, requestId);
  return answer(requestId, error.status, { __type: error.type, message: error.message }, error.type);
}

/** The Lambda handler of `POST /`: Secrets Manager's operations and STS's GetCallerIdentity. */
export function makeAwsHandler(deps: AwsHandlerDeps) {
  return middy<ApiEvent, ApiResult>().handler(async (event) => {
    const requestId = randomUUID();
    const log = requestLogger(requestId);
    const started = Date.now();
    const headers = headersOf(event);
    const auth = parseAuthorization(headers.authorization);
    const protocol = protocolOf(headers, auth);
    let operation = 'unknown';
    let result: ApiResult;
    let pending: Promise<void> | undefined;
    try {
      if (isRefusal(auth)) throw new AwsError(auth.type, auth.message, auth.type === 'MissingAuthenticationToken' ? 403 : 400);
      const request = signedRequestOf(event, headers);
      const caller = await authenticated(deps, event, request, auth, protocol);
      pending = caller.pending;
      if (protocol === 'sts') {
        ({ action: operation, result } = (await stsQuery()).answerSts(caller.principal, request, deps.account, requestId));
      } else {
        const [name, named] = operationOf(headers['x-amz-target'], deps.operations);
        operation = name;
        result = answer(requestId, 200, await runOperation(named, request, caller, log));
      }
    } catch (thrown) {
      result = await errorAnswer(thrown, protocol, requestId, log);
    }
    // Lambda freezes the container once the handler returns: started work (a key's lastUsedAt) must end first.
    await pending;
    log[result.statusCode! >= 500 ? 'error' : 'info']('request completed', {
      routeKey: event.routeKey,
      protocol,
      operation,
      status: result.statusCode,
      durationMs: Date.now() - started,
      ...(result.headers?.['x-amzn-errortype'] ? { errorType: result.headers['x-amzn-errortype'] } : {}),
    });
    return result;
  });
}
