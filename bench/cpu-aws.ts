// The AWS Secrets Manager API in the CPU bench's child (bench/cpu-child.ts): its handler and its signed events.
import { randomUUID } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { NodeSha256 } from '../sdk/src/node-sha256.ts';
import { API_HOST, apiEvent, GATEWAY_HEADERS } from './cpu-events.ts';
import type { Handler } from './cpu-passes.ts';
import type { seedWorkspace } from './cpu-seed.ts';
import type { Subject } from './cpu-subjects.ts';

type Workspace = Awaited<ReturnType<typeof seedWorkspace>>;

/** The AWS SDK for JavaScript's user agent, as it sends it (bench/aws-api.ts calls through that SDK). */
const SDK_USER_AGENT = 'aws-sdk-js/3.1163.0 ua/2.1 os/linux lang/js md/nodejs#24 api/secrets-manager#3.1163.0 m/N,E,e';

/**
 * GetSecretValue and BatchGetSecretValue over the real handler module of the AWS API (functions/aws/handler.ts,
 * `POST /`), signed with an `aws_sigv4` key of the bench workspace made through the access-keys route, as a
 * customer makes one. GetSecretValue reveals `path` (the secret the REST reveals reveal); BatchGetSecretValue
 * `batchSecrets` secrets of an environment "load" made here with the values bench/run.ts gives its load secrets.
 * The key pair's secret half stays in this process's memory, in the signer: it is never printed.
 */
export async function awsSubjects(ws: Workspace, setup: { path: string; batchSecrets: number }) {
  const [{ handler: aws }, { handler: accessKeys }, { handler: environments }, { runtime }] = await Promise.all([
    import('../functions/aws/handler.ts'),
    import('../functions/access-keys/handler.ts'),
    import('../functions/environments/handler.ts'),
    import('../shared/platform/runtime.ts'),
  ]);
  const key = await ws.call(
    accessKeys as Handler,
    'POST /api/v1/access-keys',
    ws.withBody(ws.apiKey, { name: 'bench-aws', auth: { type: 'aws_sigv4' } }),
    201,
  );
  const signer = new SignatureV4({
    service: 'secretsmanager',
    region: runtime().config.aws.region,
    credentials: { accessKeyId: key.auth.awsAccessKeyId, secretAccessKey: key.awsSecretAccessKey },
    sha256: NodeSha256,
  });
  const load = await ws.call(
    environments as Handler,
    'POST /api/v1/projects/{projectId}/environments',
    { pathParameters: { projectId: ws.project.id }, ...ws.withBody(ws.apiKey, { name: 'load' }) },
    201,
  );
  for (let i = 0; i < setup.batchSecrets; i++) {
    await ws.call(ws.handler, 'PUT /api/v1/environments/{envId}/secrets', {
      pathParameters: { envId: load.id },
      ...ws.withBody(ws.apiKey, { key: `SERVICE_SECRET_${i}`, value: `value-${i}-${'x'.repeat(40)}` }),
    });
  }
  const names = Array.from({ length: setup.batchSecrets }, (_, i) => `${ws.project.slug}/${load.slug}/SERVICE_SECRET_${i}`);
  const subject = (operation: string, input: object, share: number) =>
    signedSubject(aws as Handler, signer, operation, JSON.stringify(input), share);
  return {
    awsGetSecretValue: subject('GetSecretValue', { SecretId: setup.path }, 1),
    // 20 secrets a call: a fifth as many calls as reveals keeps its rounds about as long (their CPU is per call).
    awsBatchGetSecretValue: subject('BatchGetSecretValue', { SecretIdList: names }, 1 / 5),
  };
}

/** An operation whose events are signed ahead, `n` at a time, by `ready(n)`. */
function signedSubject(handler: Handler, signer: SignatureV4, operation: string, body: string, share: number): Subject {
  let events: APIGatewayProxyEventV2[] = [];
  let next = 0;
  return {
    handler,
    share,
    async ready(n) {
      events = await Promise.all(Array.from({ length: n }, () => signedEvent(signer, operation, body)));
      next = 0;
    },
    event() {
      const event = events[next++];
      if (!event) throw new Error(`${operation}: more events asked for than were signed ahead`);
      return event;
    },
  };
}

/**
 * The event API Gateway v2 hands the function for one call of the AWS SDK: the SDK's headers, signed as the SDK
 * signs them (every header but the user agent, and the payload's hash), then API Gateway's own; the body
 * base64-encoded with `isBase64Encoded`, as API Gateway passes `application/x-amz-json-1.1` (bin/local/http-front.ts).
 */
async function signedEvent(signer: SignatureV4, operation: string, body: string): Promise<APIGatewayProxyEventV2> {
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'https:',
    hostname: API_HOST,
    path: '/',
    query: {},
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `secretsmanager.${operation}`,
      'content-length': String(Buffer.byteLength(body)),
      'x-amz-user-agent': 'aws-sdk-js/3.1163.0',
      'user-agent': SDK_USER_AGENT,
      host: API_HOST,
      'amz-sdk-invocation-id': randomUUID(),
      'amz-sdk-request': 'attempt=1; max=1',
    },
    body,
  });
  const event = apiEvent('POST /', '', {
    headers: { ...(signed.headers as Record<string, string>), ...GATEWAY_HEADERS() },
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
  });
  event.requestContext.http.userAgent = SDK_USER_AGENT;
  return event;
}
