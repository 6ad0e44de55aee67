import * as z from 'zod/mini';

const optionalString = z.optional(z.string().check(z.trim(), z.minLength(1)));
const optionalUrl = z.optional(z.url());
const withDefault = <T extends z.ZodMiniType>(schema: T, value: z.infer<T>) => z._default(schema, value as never);
/** A number from the environment (a string), within bounds. */
const number = (check: z.ZodMiniNumber<number>) => z.pipe(z.pipe(z.string(), z.transform(Number)), check);

const configSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1, 'TABLE_NAME is required')),
  /** Set by the local stack only; in AWS the SDK's regional endpoint is used. */
  DYNAMODB_ENDPOINT: optionalUrl,
  JWT_ISSUER: optionalString,
  JWT_AUDIENCE: optionalString,
  JWT_JWKS_URI: optionalUrl,
  JWT_WORKSPACE_CLAIM: withDefault(z.string().check(z.minLength(1)), 'workspace_id'),
  /** When set (e.g. `at+jwt`), a JWT whose `typ` header differs is refused: an IdP's ID tokens are not access tokens. */
  JWT_REQUIRED_TYPE: optionalString,
  SERVICE_NAME: withDefault(z.string().check(z.minLength(1)), 'secrets-service'),
  REVEAL_RATE_LIMIT_PER_MINUTE: withDefault(number(z.int().check(z.minimum(1), z.maximum(1_000_000))), 120),
  /** The ceiling of all of a workspace's credentials together (default 10 times the per-credential limit). */
  REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE: z.optional(number(z.int().check(z.minimum(1), z.maximum(10_000_000)))),
  /** The customer-managed KMS key that wraps data keys (set by the CDK stack). */
  KMS_KEY_ID: optionalString,
  /** The local stack's keyring file, in place of KMS (never set by the CDK stack). */
  LOCAL_KEYRING_FILE: optionalString,
  /** CIDRs exempted from the webhook SSRF guard: local stack and tests only, never set by the CDK stack. */
  WEBHOOK_ALLOW_PRIVATE_CIDRS: optionalString,
  /** Scales retry delays and the auto-disable window (local stack and tests only; 1 in AWS). */
  WEBHOOK_TIME_SCALE: withDefault(number(z.number().check(z.positive(), z.maximum(1))), 1),
  /** A pending delivery this long past due is re-queued by the sweeper. */
  WEBHOOK_SWEEP_GRACE_SECONDS: withDefault(number(z.int().check(z.minimum(1), z.maximum(86_400))), 300),
  DELIVERY_QUEUE_URL: optionalString,
  DELIVERY_QUEUE_ARN: optionalString,
  SCHEDULER_GROUP: optionalString,
  SCHEDULER_ROLE_ARN: optionalString,
  /** Local stack only: the SQS emulator and the local Scheduler API. */
  SQS_ENDPOINT: optionalUrl,
  SCHEDULER_ENDPOINT: optionalUrl,
});

export type Config = {
  tableName: string;
  dynamodbEndpoint: string | undefined;
  jwt: { issuer: string; audience: string; jwksUri: string; workspaceClaim: string; requiredType: string | undefined } | undefined;
  serviceName: string;
  /** Reveals per minute per credential (decisions.md: 120 by default). */
  revealsPerMinute: number;
  /** Reveals per minute of a workspace's credentials together, so more keys cannot multiply the limit. */
  workspaceRevealsPerMinute: number;
  webhooks: {
    allowPrivateCidrs: string | undefined;
    timeScale: number;
    sweepGraceMs: number;
    queueUrl: string | undefined;
    queueArn: string | undefined;
    schedulerGroup: string | undefined;
    schedulerRoleArn: string | undefined;
    sqsEndpoint: string | undefined;
    schedulerEndpoint: string | undefined;
  };
  /** Which key provider wraps data keys; undefined where a function encrypts nothing. */
  encryption: { kind: 'kms'; keyId: string } | { kind: 'local'; keyFile: string } | undefined;
};

/**
 * Reads and validates the environment once, at cold start; a missing or malformed setting fails loudly here
 * rather than on a customer's request.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = z.safeParse(configSchema, env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  const jwtParts = [c.JWT_ISSUER, c.JWT_AUDIENCE, c.JWT_JWKS_URI];
  if (jwtParts.some(Boolean) && !jwtParts.every(Boolean)) {
    throw new Error('Invalid configuration: JWT_ISSUER, JWT_AUDIENCE and JWT_JWKS_URI must be set together');
  }
  return {
    tableName: c.TABLE_NAME,
    dynamodbEndpoint: c.DYNAMODB_ENDPOINT,
    jwt: c.JWT_ISSUER
      ? { issuer: c.JWT_ISSUER, audience: c.JWT_AUDIENCE!, jwksUri: c.JWT_JWKS_URI!, workspaceClaim: c.JWT_WORKSPACE_CLAIM, requiredType: c.JWT_REQUIRED_TYPE }
      : undefined,
    serviceName: c.SERVICE_NAME,
    revealsPerMinute: c.REVEAL_RATE_LIMIT_PER_MINUTE,
    workspaceRevealsPerMinute: c.REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE ?? c.REVEAL_RATE_LIMIT_PER_MINUTE * 10,
    webhooks: {
      allowPrivateCidrs: c.WEBHOOK_ALLOW_PRIVATE_CIDRS,
      timeScale: c.WEBHOOK_TIME_SCALE,
      sweepGraceMs: c.WEBHOOK_SWEEP_GRACE_SECONDS * 1000,
      queueUrl: c.DELIVERY_QUEUE_URL,
      queueArn: c.DELIVERY_QUEUE_ARN,
      schedulerGroup: c.SCHEDULER_GROUP,
      schedulerRoleArn: c.SCHEDULER_ROLE_ARN,
      sqsEndpoint: c.SQS_ENDPOINT,
      schedulerEndpoint: c.SCHEDULER_ENDPOINT,
    },
    encryption: encryptionOf(c.KMS_KEY_ID, c.LOCAL_KEYRING_FILE),
  };
}

function encryptionOf(kmsKeyId: string | undefined, keyFile: string | undefined): Config['encryption'] {
  if (kmsKeyId && keyFile) throw new Error('Invalid configuration: set KMS_KEY_ID or LOCAL_KEYRING_FILE, not both');
  if (kmsKeyId) return { kind: 'kms', keyId: kmsKeyId };
  if (keyFile) return { kind: 'local', keyFile };
  return undefined;
}
