/**
 * The environment's settings, checked by hand rather than with a zod schema: building the schema was a measurable
 * part of every function's cold start (and zod's whole weight in the pipeline's bundles), for about twenty string
 * checks. Each check answers the value or the rule it broke, and a failure names the variable and the rule.
 */

import { ROLES, type Role } from './roles.ts';

/** A setting's value from its raw string, or the rule the string broke. */
type Check<T> = (raw: string) => { value: T } | { rule: string };

/** A non-empty string, trimmed. */
const trimmed: Check<string> = (raw) => (raw.trim() ? { value: raw.trim() } : { rule: 'must not be empty' });
/** A non-empty string, as given. */
const nonEmpty: Check<string> = (raw) => (raw ? { value: raw } : { rule: 'must not be empty' });
/** A URL the WHATWG parser accepts, trimmed (and without tabs or line breaks, which the parser ignores). */
const accountId: Check<string> = (raw) => (/^\d{12}$/.test(raw.trim()) ? { value: raw.trim() } : { rule: 'must be 12 digits' });
const url: Check<string> = (raw) => (URL.canParse(raw.trim()) ? { value: raw.trim().replace(/[\t\n\r]/g, '') } : { rule: 'must be a URL' });
/** An https URL: aws-jwt-verify fetches keys over https only, so anything else would refuse every JWT as invalid. */
const httpsUrl: Check<string> = (raw) => {
  const checked = url(raw);
  return 'value' in checked && !checked.value.toLowerCase().startsWith('https:') ? { rule: 'must be an https URL' } : checked;
};
/** A whole number as JavaScript's Number() reads the string, within bounds. */
const integer =
  (min: number, max: number): Check<number> =>
  (raw) => {
    const value = Number(raw);
    return Number.isSafeInteger(value) && value >= min && value <= max ? { value } : { rule: `must be an integer from ${min} to ${max}` };
  };
/** One of a fixed set of words. */
const oneOf =
  <T extends string>(words: readonly T[]): Check<T> =>
  (raw) =>
    (words as readonly string[]).includes(raw) ? { value: raw as T } : { rule: `must be one of ${words.join(', ')}` };
/** A number above 0 and at most 1. */
const fraction: Check<number> = (raw) => {
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 && value <= 1 ? { value } : { rule: 'must be a number above 0 and at most 1' };
};

export type Config = {
  tableName: string;
  dynamodbEndpoint: string | undefined;
  jwt:
    | {
        issuer: string;
        audience: string;
        jwksUri: string;
        workspaceClaim: string;
        requiredType: string | undefined;
        roleClaim: string;
        defaultRole: Role;
      }
    | undefined;
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
  /** Rotation (decisions.md v1.3): where a rotation's steps are queued. */
  rotation: {
    queueUrl: string | undefined;
    queueArn: string | undefined;
    scheduleGroup: string | undefined;
    schedulerRoleArn: string | undefined;
  };
  /** Workload identity (decisions.md, "Workload identity"): where IAM logins are replayed and what they must be bound to. */
  login: {
    /** The STS endpoint a signed GetCallerIdentity must name: `AWS_STS_ENDPOINT`, else the regional endpoint of `AWS_REGION`. */
    stsEndpoint: string | undefined;
    /** The value a login's signed `x-service-server-id` header must carry (`IAM_SERVER_ID`). */
    serverId: string | undefined;
    /** CIDRs an OIDC issuer may resolve to despite being private: local stack and tests only, never set by the CDK stack. */
    oidcAllowPrivateCidrs: string | undefined;
  };
  /** Which key provider wraps data keys; undefined where a function encrypts nothing. */
  encryption: { kind: 'kms'; keyId: string } | { kind: 'local'; keyFile: string } | undefined;
  /** Where the AWS Secrets Manager API answers: the region requests are signed for, the account of its ARNs. */
  aws: { region: string; account: string };
  /** The names of the key values are sealed under, as an AWS request may give them (`KmsKeyId`); locally none. */
  keyNames: { keyArn: string | undefined; alias: string | undefined };
};

/**
 * Reads and validates the environment once, at cold start; a missing or malformed setting fails loudly here
 * rather than on a customer's request.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  /** The checked value of a set variable (a broken rule is noted), undefined when it is not set. */
  const read = <T>(name: string, check: Check<T>): T | undefined => {
    const raw = env[name];
    if (raw === undefined) return undefined;
    const checked = check(raw);
    if ('value' in checked) return checked.value;
    problems.push(`${name}: ${checked.rule}`);
    return undefined;
  };
  /** Notes a required variable that is not set (a set one that broke its rule is noted already). */
  const required = (name: string): string => {
    if (env[name] === undefined) problems.push(`${name}: is required`);
    return '';
  };
  const c = {
    TABLE_NAME: read('TABLE_NAME', nonEmpty) ?? required('TABLE_NAME'),
    /** Set by the local stack only; in AWS the SDK's regional endpoint is used. */
    DYNAMODB_ENDPOINT: read('DYNAMODB_ENDPOINT', url),
    JWT_ISSUER: read('JWT_ISSUER', trimmed),
    JWT_AUDIENCE: read('JWT_AUDIENCE', trimmed),
    JWT_JWKS_URI: read('JWT_JWKS_URI', httpsUrl),
    JWT_WORKSPACE_CLAIM: read('JWT_WORKSPACE_CLAIM', nonEmpty) ?? 'workspace_id',
    /** When set (e.g. `at+jwt`), a JWT whose `typ` header differs is refused: an IdP's ID tokens are not access tokens. */
    JWT_REQUIRED_TYPE: read('JWT_REQUIRED_TYPE', trimmed),
    /** The claim that holds a person's role (a string or an array of strings): `admin`, `developer` or `viewer`. */
    JWT_ROLE_CLAIM: read('JWT_ROLE_CLAIM', nonEmpty) ?? 'roles',
    /** A person's role when the claim names none of the three. */
    JWT_DEFAULT_ROLE: read('JWT_DEFAULT_ROLE', oneOf(ROLES)) ?? 'viewer',
    SERVICE_NAME: read('SERVICE_NAME', nonEmpty) ?? 'secrets-service',
    REVEAL_RATE_LIMIT_PER_MINUTE: read('REVEAL_RATE_LIMIT_PER_MINUTE', integer(1, 1_000_000)) ?? 120,
    /** The ceiling of all of a workspace's credentials together (default 10 times the per-credential limit). */
    REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE: read('REVEAL_RATE_LIMIT_WORKSPACE_PER_MINUTE', integer(1, 10_000_000)),
    /** The customer-managed KMS key that wraps data keys (set by the CDK stack). */
    KMS_KEY_ID: read('KMS_KEY_ID', trimmed),
    /** The KMS key's alias (`alias/<stage>-secrets`, set by the CDK stack for the AWS API): a `KmsKeyId` it accepts. */
    KMS_KEY_ALIAS: read('KMS_KEY_ALIAS', trimmed),
    /** The local stack's keyring file, in place of KMS (never set by the CDK stack). */
    LOCAL_KEYRING_FILE: read('LOCAL_KEYRING_FILE', trimmed),
    /** CIDRs exempted from the webhook SSRF guard: local stack and tests only, never set by the CDK stack. */
    WEBHOOK_ALLOW_PRIVATE_CIDRS: read('WEBHOOK_ALLOW_PRIVATE_CIDRS', trimmed),
    /** Scales retry delays and the auto-disable window (local stack and tests only; 1 in AWS). */
    WEBHOOK_TIME_SCALE: read('WEBHOOK_TIME_SCALE', fraction) ?? 1,
    /** A pending delivery this long past due is re-queued by the sweeper. */
    WEBHOOK_SWEEP_GRACE_SECONDS: read('WEBHOOK_SWEEP_GRACE_SECONDS', integer(1, 86_400)) ?? 300,
    DELIVERY_QUEUE_URL: read('DELIVERY_QUEUE_URL', trimmed),
    DELIVERY_QUEUE_ARN: read('DELIVERY_QUEUE_ARN', trimmed),
    /** The rotation queue: each message one step of one rotation (set by the CDK stack and the local stack). */
    ROTATION_QUEUE_URL: read('ROTATION_QUEUE_URL', trimmed),
    /** Scheduled rotations: one EventBridge Scheduler schedule per secret in this group, sending to the rotation queue. */
    ROTATION_QUEUE_ARN: read('ROTATION_QUEUE_ARN', trimmed),
    ROTATION_SCHEDULE_GROUP: read('ROTATION_SCHEDULE_GROUP', trimmed),
    ROTATION_SCHEDULER_ROLE_ARN: read('ROTATION_SCHEDULER_ROLE_ARN', trimmed),
    SCHEDULER_GROUP: read('SCHEDULER_GROUP', trimmed),
    SCHEDULER_ROLE_ARN: read('SCHEDULER_ROLE_ARN', trimmed),
    /** Local stack only: the SQS emulator and the local Scheduler API. */
    SQS_ENDPOINT: read('SQS_ENDPOINT', url),
    SCHEDULER_ENDPOINT: read('SCHEDULER_ENDPOINT', url),
    /** The STS endpoint IAM logins are replayed to (the local stack's stand-in); in AWS the stack's regional endpoint. */
    AWS_STS_ENDPOINT: read('AWS_STS_ENDPOINT', url),
    /** Set by Lambda: the regional STS endpoint is derived from it when AWS_STS_ENDPOINT is not set. */
    AWS_REGION: read('AWS_REGION', trimmed),
    /** The stack's AWS account (set by the CDK stack): the account of the AWS API's secret ARNs; locally 000000000000. */
    AWS_ACCOUNT_ID: read('AWS_ACCOUNT_ID', accountId),
    /** The region AWS API requests are signed for, where it is not Lambda's AWS_REGION (the local stack: us-east-1). */
    AWS_API_REGION: read('AWS_API_REGION', trimmed),
    /** The server id an IAM login must sign (`x-service-server-id`): the API's host by default in the CDK stack. */
    IAM_SERVER_ID: read('IAM_SERVER_ID', trimmed),
    /** CIDRs exempted from the SSRF guard for OIDC discovery and keys: local stack and tests only. */
    OIDC_ALLOW_PRIVATE_CIDRS: read('OIDC_ALLOW_PRIVATE_CIDRS', trimmed),
  };
  if (problems.length > 0) throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  const jwtParts = [c.JWT_ISSUER, c.JWT_AUDIENCE, c.JWT_JWKS_URI];
  if (jwtParts.some(Boolean) && !jwtParts.every(Boolean)) {
    throw new Error('Invalid configuration: JWT_ISSUER, JWT_AUDIENCE and JWT_JWKS_URI must be set together');
  }
  return {
    tableName: c.TABLE_NAME,
    dynamodbEndpoint: c.DYNAMODB_ENDPOINT,
    jwt: c.JWT_ISSUER
      ? {
          issuer: c.JWT_ISSUER,
          audience: c.JWT_AUDIENCE!,
          jwksUri: c.JWT_JWKS_URI!,
          workspaceClaim: c.JWT_WORKSPACE_CLAIM,
          requiredType: c.JWT_REQUIRED_TYPE,
          roleClaim: c.JWT_ROLE_CLAIM,
          defaultRole: c.JWT_DEFAULT_ROLE,
        }
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
    rotation: {
      queueUrl: c.ROTATION_QUEUE_URL,
      queueArn: c.ROTATION_QUEUE_ARN,
      scheduleGroup: c.ROTATION_SCHEDULE_GROUP,
      schedulerRoleArn: c.ROTATION_SCHEDULER_ROLE_ARN,
    },
    login: {
      stsEndpoint: c.AWS_STS_ENDPOINT ?? (c.AWS_REGION ? regionalStsEndpoint(c.AWS_REGION) : undefined),
      serverId: c.IAM_SERVER_ID,
      oidcAllowPrivateCidrs: c.OIDC_ALLOW_PRIVATE_CIDRS,
    },
    encryption: encryptionOf(c.KMS_KEY_ID, c.LOCAL_KEYRING_FILE),
    /** Where the AWS Secrets Manager API answers: the region requests are signed for, the account of its ARNs. */
    aws: { region: c.AWS_API_REGION ?? c.AWS_REGION ?? 'us-east-1', account: c.AWS_ACCOUNT_ID ?? '000000000000' },
    /** The names of the key values are sealed under that a request may give (the AWS API's `KmsKeyId`). */
    keyNames: { keyArn: c.KMS_KEY_ID?.startsWith('arn:') ? c.KMS_KEY_ID : undefined, alias: c.KMS_KEY_ALIAS },
  };
}

/** STS's regional endpoint (the one AWS recommends over the global one), as a login's signed url must name it. */
export function regionalStsEndpoint(region: string): string {
  return `https://sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}/`;
}

/**
 * The encryption the configuration names, for a function that seals or opens values; without one it fails at cold
 * start, even where the cipher is made on the first value (shared/platform/crypto/cipher-on-first-use.ts).
 */
export function configuredEncryption(config: Config): NonNullable<Config['encryption']> {
  if (!config.encryption) throw new Error('Invalid configuration: KMS_KEY_ID (or LOCAL_KEYRING_FILE for the local stack) is required');
  return config.encryption;
}

/** A setting the webhook functions cannot start without: its value, or a configuration error naming it. */
export function requiredSetting(value: string | undefined, name: string): string {
  if (!value) throw new Error(`Invalid configuration: ${name} is required for webhook delivery`);
  return value;
}

function encryptionOf(kmsKeyId: string | undefined, keyFile: string | undefined): Config['encryption'] {
  if (kmsKeyId && keyFile) throw new Error('Invalid configuration: set KMS_KEY_ID or LOCAL_KEYRING_FILE, not both');
  if (kmsKeyId) return { kind: 'kms', keyId: kmsKeyId };
  if (keyFile) return { kind: 'local', keyFile };
  return undefined;
}
