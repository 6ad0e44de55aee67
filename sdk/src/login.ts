/**
 * Workload identity on the client (decisions.md, "Workload identity: login with AWS IAM or OIDC"): an access key
 * whose `auth` is `aws_iam` or `oidc` has no token of its own; the client proves who it is at
 * `POST /api/v1/auth/login` and uses the short-lived `st_` token it is given, logging in again before it expires
 * and once after a 401. Neither the token nor the JWT nor an AWS secret ever goes into an error message.
 */
import createFetchClient from 'openapi-fetch';
import type { operations, paths } from './api.js';
import { awsIamSettings, makeAwsIamSigner } from './aws-iam.js';
import { ApiError, unwrap } from './errors.js';

/** Log in with the AWS IAM identity of the AWS SDK's default credential chain. */
export interface AwsIamAuth {
  /** The access key (`ak_…`) whose `auth` is `aws_iam`. */
  accessKeyId: string;
  method: 'aws_iam';
  /** The STS endpoint the service replays the request to (default `SECRETS_AWS_STS_ENDPOINT`, else `https://sts.${AWS_REGION}.amazonaws.com/`). */
  stsEndpoint?: string;
  /** The service's server id (default: the host and port of `baseUrl`). */
  serverId?: string;
  /** The signing region when the endpoint's host does not name one (default us-east-1, what the local STS stand-in checks). */
  region?: string;
}

/** Log in with an OIDC token (a JWT) of an issuer the access key trusts. */
export interface OidcAuth {
  /** The access key (`ak_…`) whose `auth` is `oidc`. */
  accessKeyId: string;
  method: 'oidc';
  /** The JWT, or a function answering a fresh one (called on each login). */
  jwt: string | (() => string | Promise<string>);
}

export type AuthOptions = AwsIamAuth | OidcAuth;

type LoginOperation = operations['login'];

/** The answer of `POST /api/v1/auth/login`: `token`, `expiresAt` (ISO 8601), `accessKeyId`, `identityId`. */
export type LoginAnswer = LoginOperation['responses'][200]['content']['application/json']['data'];

/** What a login posts: a signed GetCallerIdentity request, or a JWT. */
export type LoginBody = LoginOperation['requestBody']['content']['application/json'];

/**
 * A maker of login bodies: a freshly signed request or a fresh JWT for each login. Its settings are checked at once
 * (TypeError: an unknown method, an IAM login without an STS endpoint); what fails while a body is made (no AWS
 * credentials, the JWT function threw) is an ApiError 401 AUTH_REQUIRED naming the step, never the material.
 */
export function loginBodies(auth: AuthOptions, baseUrl: string): () => Promise<LoginBody> {
  const { accessKeyId } = auth;
  if (typeof accessKeyId !== 'string' || accessKeyId === '') throw new TypeError('auth.accessKeyId is required');
  if (auth.method === 'aws_iam') {
    const sign = makeAwsIamSigner(awsIamSettings(auth, baseUrl));
    return async () => ({
      accessKeyId,
      method: 'aws_iam',
      signedRequest: await localStep('aws_iam', 'the STS request could not be signed', sign),
    });
  }
  if (auth.method === 'oidc') {
    const { jwt } = auth;
    if (typeof jwt !== 'string' && typeof jwt !== 'function') throw new TypeError('auth.jwt must be a string or a function answering one');
    return async () => {
      const token = await localStep('oidc', 'the jwt function failed', async () => (typeof jwt === 'string' ? jwt : jwt()));
      if (typeof token !== 'string' || token === '') throw new ApiError(401, 'AUTH_REQUIRED', 'oidc login: auth.jwt gave no token');
      return { accessKeyId, method: 'oidc', jwt: token };
    };
  }
  throw new TypeError(`auth.method must be 'aws_iam' or 'oidc'`);
}

/** A step of a login that runs here: its failure as an ApiError 401 (the SDK's error type), with its cause. */
async function localStep<T>(method: string, step: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(401, 'AUTH_REQUIRED', `${method} login: ${step}: ${(error as Error)?.message ?? 'unknown error'}`, undefined, {
      cause: error,
    });
  }
}

/** Temporary AWS credentials of a login with `format: "aws"` (decisions.md v1.3). */
export type AwsLoginCredentials = NonNullable<LoginAnswer['awsCredentials']>;

/**
 * One login: POSTs the body (no Authorization) and answers the `data` of the envelope, or throws ApiError. With
 * `format: "aws"` in the body the answer carries `awsCredentials` instead of the token.
 */
export async function postLogin(baseUrl: string, body: LoginBody, fetcher: typeof fetch): Promise<LoginAnswer> {
  const api = createFetchClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, ''), fetch: fetcher });
  const result = await api.POST('/api/v1/auth/login', { body });
  const answer = unwrap(result);
  const issued = body.format === 'aws' ? typeof answer.awsCredentials?.secretAccessKey === 'string' : typeof answer.token === 'string';
  // A token without a readable expiry would be renewed at every call: refuse it once, here.
  if (!issued || !Number.isFinite(Date.parse(answer.expiresAt))) {
    throw new ApiError(
      result.response.status,
      'HTTP_ERROR',
      'the login answer has no token or expiresAt',
      result.response.headers.get('x-request-id') ?? undefined,
    );
  }
  return answer;
}

/** The token a request goes with, and how the client says the API refused it. */
export interface TokenSource {
  /** The current token, logging in first when there is none or it is close to its expiry. */
  token(): Promise<string>;
  /** The API answered 401 to `token`: forget it (unless a newer one has replaced it already). */
  refused(token: string): void;
}

/**
 * The tokens of logins. Concurrent calls share one login in flight; a token is renewed once less than 60 s or a
 * tenth of its life remains (whichever is less, so a 60-second token is not renewed on every call); a failed login
 * rejects the calls waiting on it and is not kept: the next call tries again.
 */
export function loginTokens(login: () => Promise<LoginAnswer>, now: () => number): TokenSource {
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const renew = (): Promise<string> => {
    pending ??= login()
      .then((answer) => {
        // A login of the default format answers its token (`format: "aws"` answers AWS credentials instead).
        if (answer.token === null) throw new Error('login: the answer carries no token');
        const expiresAt = Date.parse(answer.expiresAt);
        const life = expiresAt - now();
        current = { token: answer.token, renewAt: expiresAt - Math.min(60_000, Math.max(life, 0) / 10) };
        return answer.token;
      })
      .finally(() => (pending = undefined));
    return pending;
  };
  return {
    token: () => (current && now() < current.renewAt ? Promise.resolve(current.token) : renew()),
    refused: (token) => {
      if (current?.token === token) current = undefined;
    },
  };
}
