/**
 * `@secrets-service/sdk/aws`: temporary AWS credentials from the service, for AWS SDK clients pointed at its AWS
 * Secrets Manager API (decisions.md v1.3, "Credentials"). A workload whose access key logs in with AWS IAM or OIDC
 * gets credentials that the AWS SDK renews by itself:
 *
 *   const sm = new SecretsManagerClient({
 *     endpoint: baseUrl,
 *     region: 'us-east-1',
 *     credentials: fromSecretsService({ baseUrl, accessKeyId: 'ak_…', method: 'oidc', jwt: () => readToken() }),
 *   });
 *
 * Nothing of the AWS SDK is imported here: the provider answers the shape every AWS SDK for JavaScript client takes
 * (`accessKeyId`, `secretAccessKey`, `sessionToken`, `expiration` as a Date), and the client, which the caller
 * brings, calls it again before `expiration`. An AWS IAM login signs with the AWS SDK's default credentials, loaded
 * only then (aws-iam.ts).
 */
import { refuseInsecureBaseUrl } from './base-url.js';
import { loginBodies, postLogin, type AuthOptions } from './login.js';

/** What an AWS SDK credential provider answers: the AWS SDK's `AwsCredentialIdentity`. */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export type FromSecretsServiceOptions = AuthOptions & {
  /** The service's base URL (the `baseUrl` of stack.json; the AWS API is at `POST /` of it). */
  baseUrl: string;
  /** The fetch to log in with (default: the global fetch, each attempt bounded to 10 s). */
  fetch?: typeof fetch;
};

/** Renewed this long before they expire, or at a tenth of their life if that is less (as the SDK's own tokens). */
const RENEW_BEFORE_MS = 60_000;

/**
 * An AWS SDK credential provider that logs in (`format: "aws"`) and answers the login's temporary credentials,
 * logging in again once less than a minute (or a tenth of their life) remains; concurrent calls share one login.
 * A failed login rejects with the SDK's ApiError (never the JWT, token or a secret in its message). A base URL that
 * is `http://` to another machine is refused at once (TypeError), as `createClient` refuses it: the login carries a
 * JWT or a signed STS request, and its answer is a secret key.
 */
export function fromSecretsService(options: FromSecretsServiceOptions): () => Promise<AwsCredentialIdentity> {
  const { baseUrl, fetch: fetcher = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) }), ...auth } = options;
  if (typeof baseUrl !== 'string' || baseUrl === '') throw new TypeError('baseUrl is required');
  refuseInsecureBaseUrl(baseUrl);
  const bodies = loginBodies(auth as AuthOptions, baseUrl);
  let current: { identity: AwsCredentialIdentity; renewAt: number } | undefined;
  let pending: Promise<AwsCredentialIdentity> | undefined;
  const renew = () => {
    pending ??= (async () => {
      const answer = await postLogin(baseUrl, { ...(await bodies()), format: 'aws' }, fetcher);
      const credentials = answer.awsCredentials!;
      const expiration = new Date(credentials.expiration);
      const life = expiration.getTime() - Date.now();
      const identity = {
        accessKeyId: credentials.accessKeyId,
        secretAccessKey: credentials.secretAccessKey,
        sessionToken: credentials.sessionToken,
        expiration,
      };
      current = { identity, renewAt: expiration.getTime() - Math.min(RENEW_BEFORE_MS, Math.max(life, 0) / 10) };
      return identity;
    })().finally(() => (pending = undefined));
    return pending;
  };
  return async () => (current && Date.now() < current.renewAt ? current.identity : renew());
}
