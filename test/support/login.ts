import { request as httpRequest } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { inject } from 'vitest';
import { NodeSha256 } from '../../bin/local/sts.ts';
import { GET_CALLER_IDENTITY_BODY } from '../../shared/access/iam-login.ts';
import { admin, call, type ApiAnswer } from './api.ts';
import { checkAnswer } from './contract.ts';

/** AWS credentials of an identity of the local STS stand-in. */
export interface StsIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  arn: string;
}

/** A role or user the local STS answers for, made with the admin CLI as a developer would. */
export async function stsIdentity(arn: string): Promise<StsIdentity> {
  return (await admin('iam-identity', 'create', '--arn', arn)) as StsIdentity;
}

/**
 * A GetCallerIdentity request signed by the AWS SDK's own signer, as a workload's SDK makes it: the server id header
 * signed with host and x-amz-date. Options make the request a check must refuse.
 */
export async function signedRequest(
  identity: StsIdentity,
  options: { serverId?: string; url?: string; body?: string; unsigned?: string[]; extraHeaders?: Record<string, string>; date?: Date } = {},
) {
  const stack = inject('stack');
  const url = new URL(options.url ?? stack.awsStsEndpoint);
  const body = options.body ?? GET_CALLER_IDENTITY_BODY;
  const signer = new SignatureV4({ service: 'sts', region: 'us-east-1', credentials: identity, sha256: NodeSha256 });
  const headers: Record<string, string> = {
    host: url.host,
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    'x-service-server-id': options.serverId ?? stack.iamServerId,
    ...options.extraHeaders,
  };
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port) || undefined,
      path: url.pathname,
      headers,
      body,
    },
    { ...(options.unsigned && { unsignableHeaders: new Set(options.unsigned) }), ...(options.date && { signingDate: options.date }) },
  );
  return { url: url.href, method: 'POST', headers: signed.headers as Record<string, string>, body };
}

/** POST /api/v1/auth/login with an IAM signed request. */
export async function iamLogin(
  accessKeyId: string,
  request: Awaited<ReturnType<typeof signedRequest>>,
  headers: Record<string, string> = {},
) {
  return call('POST', '/api/v1/auth/login', { body: { accessKeyId, method: 'aws_iam', signedRequest: request }, headers });
}

/**
 * POST /api/v1/auth/login from another source address. The local front gives the function the address of the
 * connection, as API Gateway gives `requestContext.http.sourceIp`, and every address of 127.0.0.0/8 is this
 * machine's: the request leaves from `address` (a loopback one, e.g. `127.0.0.2`) and the stack needs no setting.
 */
export function loginFrom(address: string, body: Record<string, unknown>): Promise<ApiAnswer> {
  const url = new URL('/api/v1/auth/login', inject('stack').baseUrl);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
    const sent = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress: address, headers },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('error', reject);
        response.on('end', () => {
          const parsed = answer ? JSON.parse(answer) : undefined;
          const status = response.statusCode ?? 0;
          checkAnswer('POST', url.pathname, status, parsed);
          const pairs = Object.entries(response.headers).flatMap(([name, value]) =>
            value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value] as [string, string]],
          );
          resolve({ status, headers: new Headers(pairs), body: parsed });
        });
      },
    );
    sent.on('error', reject);
    sent.end(text);
  });
}

/** An IAM login from another source address (see `loginFrom`). */
export function iamLoginFrom(address: string, accessKeyId: string, request: Awaited<ReturnType<typeof signedRequest>>) {
  return loginFrom(address, { accessKeyId, method: 'aws_iam', signedRequest: request });
}
