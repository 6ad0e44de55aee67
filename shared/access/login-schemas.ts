import * as z from 'zod/mini';
import { idSchema } from '../platform/http/schemas.ts';
import { once } from '../platform/http/once.ts';
import { maxUnits, minUnits } from '../platform/http/schemas.ts';

/**
 * The request and answer shapes of workload identity (decisions.md, "Workload identity: login with AWS IAM or
 * OIDC"): an access key's `auth` and `tokenTtlSeconds`, and the login body. What a login proves is decided in
 * shared/auth (iam-login.ts, oidc-login.ts); these only check the form.
 */

/** How long a login's token lives by default, and its bounds (seconds). */
export const DEFAULT_TOKEN_TTL_SECONDS = 900;
export const MIN_TOKEN_TTL_SECONDS = 60;
export const MAX_TOKEN_TTL_SECONDS = 43_200;
export const MAX_PRINCIPAL_ARNS = 20;
export const MAX_OIDC_CLAIMS = 10;

/**
 * An IAM role or user ARN pattern. The account is 12 digits, never a glob: `arn:aws:iam::*:role/deploy` would let a
 * role of that name in any AWS account in the world log in. The partition is literal too; the glob of permissions
 * applies to the path and name (`*` stops at `/`, `**` crosses it).
 */
const PRINCIPAL_ARN = /^arn:aws(?:-cn|-us-gov|-iso|-iso-b)?:iam::\d{12}:(?:role|user)\/[\w+=,.@/*?-]+$/;

const principalArnSchema = once(() =>
  z.string().check(
    maxUnits(512),
    z.regex(PRINCIPAL_ARN, 'must be an IAM role or user ARN with a 12-digit account, e.g. arn:aws:iam::123456789012:role/payments-*'),
    // An assumed role's ARN, what STS answers for a role, names the role without its path: a path could never match.
    z.refine((arn) => !/:role\/.*\/.*$/.test(arn), {
      error: 'a role is matched by its name alone (STS does not say its path): write arn:aws:iam::<account>:role/<name>',
    }),
  ),
);

/** An https URL without credentials or a fragment, as an OIDC issuer's `iss` is. */
const issuerSchema = once(() =>
  z.string().check(
    maxUnits(512),
    z.refine(
      (text) => {
        if (!URL.canParse(text)) return false;
        const url = new URL(text);
        return url.protocol === 'https:' && !url.username && !url.password && !url.hash && !url.search;
      },
      { error: 'must be an https URL without credentials, query or fragment (the exact iss of the tokens)' },
    ),
  ),
);

/** A claim name that is not one of the registered claims checked elsewhere. */
const claimName = once(() => z.string().check(minUnits(1), maxUnits(64)));

export const accessKeyAuthSchema = once(() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('token') }),
    z.strictObject({
      type: z.literal('aws_iam'),
      principalArns: z.array(principalArnSchema()).check(z.minLength(1), z.maxLength(MAX_PRINCIPAL_ARNS)),
    }),
    z.strictObject({ type: z.literal('aws_sigv4') }),
    z.strictObject({
      type: z.literal('oidc'),
      issuer: issuerSchema(),
      audience: z.string().check(minUnits(1), maxUnits(256)),
      subject: z.string().check(minUnits(1), maxUnits(256)),
      claims: z.optional(
        z
          .record(claimName(), z.string().check(minUnits(1), maxUnits(256)))
          .check(
            z.refine((claims) => Object.keys(claims).length <= MAX_OIDC_CLAIMS, { error: `must name at most ${MAX_OIDC_CLAIMS} claims` }),
          ),
      ),
    }),
  ]),
);

export type AccessKeyAuthInput = z.infer<ReturnType<typeof accessKeyAuthSchema>>;

export const tokenTtlSchema = once(() => z.int().check(z.minimum(MIN_TOKEN_TTL_SECONDS), z.maximum(MAX_TOKEN_TTL_SECONDS)));

/** The signed GetCallerIdentity request of an IAM login, as the SDK's signer made it. */
const signedRequestSchema = once(() =>
  z.strictObject({
    url: z.string().check(maxUnits(2048)),
    method: z.string().check(maxUnits(16)),
    headers: z
      .record(z.string().check(minUnits(1), maxUnits(128)), z.string().check(maxUnits(8192)))
      .check(z.refine((headers) => Object.keys(headers).length <= 32, { error: 'must hold at most 32 headers' })),
    body: z.string().check(maxUnits(1024)),
  }),
);

/**
 * The login body. A JWT's own limit (16 KiB) is a check of the login, answered 401 like every other; the schema
 * only refuses what cannot be a JWT at all (the body's 256 KiB bound holds first).
 */
export const loginBodySchema = once(() =>
  z.discriminatedUnion('method', [
    z.strictObject({
      accessKeyId: idSchema('accessKey'),
      method: z.literal('aws_iam'),
      signedRequest: signedRequestSchema(),
      format: z.optional(loginFormatSchema()),
    }),
    z.strictObject({
      accessKeyId: idSchema('accessKey'),
      method: z.literal('oidc'),
      jwt: z.string().check(minUnits(1)),
      format: z.optional(loginFormatSchema()),
    }),
  ]),
);

/** `token` (the default): the `st_` token; `aws`: temporary AWS credentials for the AWS API (decisions.md v1.3). */
const loginFormatSchema = once(() => z.enum(['token', 'aws']));

export type LoginBody = z.infer<ReturnType<typeof loginBodySchema>>;

/** The login answer: a short-lived `st_` token with its key's permissions. */
export const loginAnswer = once(() =>
  z.object({
    token: z.nullable(z.string()),
    expiresAt: z.string(),
    accessKeyId: z.string(),
    identityId: z.string(),
    // With `"format": "aws"`: the token as temporary AWS credentials, and `token` null.
    awsCredentials: z.optional(
      z.object({ accessKeyId: z.string(), secretAccessKey: z.string(), sessionToken: z.string(), expiration: z.string() }),
    ),
  }),
);

/** `auth` as the record shows it (what the create body took, `{"type":"token"}` for keys made before). */
export const accessKeyAuthAnswer = once(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('token') }),
    z.object({ type: z.literal('aws_iam'), principalArns: z.array(z.string()) }),
    z.object({ type: z.literal('aws_sigv4'), awsAccessKeyId: z.string() }),
    z.object({
      type: z.literal('oidc'),
      issuer: z.string(),
      audience: z.string(),
      subject: z.string(),
      claims: z.optional(z.record(z.string(), z.string())),
    }),
  ]),
);
