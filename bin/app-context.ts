import type { App } from 'aws-cdk-lib';
import type { JwtSettings } from '../lib/api.ts';
import { ROLES, type Role } from '../shared/platform/roles.ts';
import type { ServiceStackProps } from '../lib/service-stack.ts';

const STAGE_PATTERN = /^[a-z][a-z0-9-]{0,19}$/;
/** Deliberately plain: SNS checks the address, and the subscriber confirms it. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The stack's settings from the CDK app's context (`cdk synth -c stage=dev ...`, or cdk.json): unset values take the
 * stack's defaults; a malformed value throws with the offending key named. What the stack checks itself (CloudWatch's
 * retentions, S3's retention range, the rotation and sync patterns) it checks when it is built (bin/app.ts).
 */
export function propsFromContext(app: App): Omit<ServiceStackProps, 'consoleDir'> & { stage: string } {
  const context = (key: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`Context ${key} must be a string or number`);
    return String(value).trim();
  };
  const stage = context('stage') ?? 'prod';
  if (!STAGE_PATTERN.test(stage)) {
    throw new Error(`Context stage must match ${STAGE_PATTERN} (lower-case, starts with a letter); got "${stage}"`);
  }
  const jwt = readJwt(context);
  return {
    stage,
    jwt,
    consoleClientId: readConsoleClientId(context, jwt),
    apiThrottle: readThrottle(context, 'apiRateLimit', 'apiBurstLimit'),
    revealRouteThrottle: readThrottle(context, 'revealRouteRateLimit', 'revealRouteBurstLimit'),
    loginRouteThrottle: readThrottle(context, 'loginRouteRateLimit', 'loginRouteBurstLimit'),
    iamServerId: readServerId(context),
    apiReservedConcurrency: readPositiveInt(context, 'apiReservedConcurrency'),
    workspaceRevealsPerMinute: readPositiveInt(context, 'workspaceRevealRateLimit'),
    logRetentionDays: readPositiveInt(context, 'logRetentionDays'),
    revealsPerMinute: readPositiveInt(context, 'revealRateLimit'),
    removalPolicy: readRemovalPolicy(context),
    alarmEmail: readEmail(context, 'alarmEmail'),
    rotationFunctionArns: readArnList(
      'rotationFunctionArns',
      app.node.tryGetContext('rotationFunctionArns'),
      'Lambda function ARN patterns',
    ),
    syncRoleArns: readArnList('syncRoleArns', app.node.tryGetContext('syncRoleArns')),
    syncOwnAccount: readFlag('syncOwnAccount', app.node.tryGetContext('syncOwnAccount')),
    // The stack checks the range S3 accepts (lib/audit-digests.ts), naming the setting.
    auditRetentionDays: readPositiveInt(context, 'auditRetentionDays'),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: `Secrets management service (${stage})`,
  };
}

type ContextReader = (key: string) => string | undefined;

/** A host name, or a host and port: what a workload's signed login carries as `x-service-server-id`. */
function readServerId(context: ContextReader): string | undefined {
  const value = context('iamServerId');
  if (value !== undefined && !/^[A-Za-z0-9.-]{1,253}(?::\d{1,5})?$/.test(value)) {
    throw new Error(`Context iamServerId must be a host name (optionally with :port), such as secrets.example.com; got "${value}"`);
  }
  return value;
}

/** Issuer, audience and JWKS URI come together or not at all; the workspace claim only with them. */
function readJwt(context: ContextReader): JwtSettings | undefined {
  const issuer = context('jwtIssuer');
  const audience = context('jwtAudience');
  const jwksUri = context('jwtJwksUri');
  const workspaceClaim = context('jwtWorkspaceClaim');
  const requiredType = context('jwtRequiredType');
  const roleClaim = context('jwtRoleClaim');
  const defaultRole = context('jwtDefaultRole');
  if (!issuer && !audience && !jwksUri) {
    for (const [key, value] of [
      ['jwtWorkspaceClaim', workspaceClaim],
      ['jwtRequiredType', requiredType],
      ['jwtRoleClaim', roleClaim],
      ['jwtDefaultRole', defaultRole],
    ] as const) {
      if (value) throw new Error(`Context ${key} needs jwtIssuer, jwtAudience and jwtJwksUri`);
    }
    return undefined;
  }
  if (!issuer || !audience || !jwksUri) {
    throw new Error('Context jwtIssuer, jwtAudience and jwtJwksUri must be set together');
  }
  if (!URL.canParse(jwksUri) || new URL(jwksUri).protocol !== 'https:') {
    throw new Error(`Context jwtJwksUri must be an https URL; got "${jwksUri}"`);
  }
  if (defaultRole !== undefined && !(ROLES as readonly string[]).includes(defaultRole)) {
    throw new Error(`Context jwtDefaultRole must be one of ${ROLES.join(', ')}; got "${defaultRole}"`);
  }
  return { issuer, audience, jwksUri, workspaceClaim, requiredType, roleClaim, defaultRole: defaultRole as Role | undefined };
}

/**
 * The console's OAuth client id at the identity provider (a public client: no secret), with which the console
 * signs people in; it needs the JWT settings, whose issuer the console reaches over https.
 */
function readConsoleClientId(context: ContextReader, jwt: JwtSettings | undefined): string | undefined {
  const value = context('consoleClientId');
  if (value === undefined) return undefined;
  if (!jwt) throw new Error('Context consoleClientId needs jwtIssuer, jwtAudience and jwtJwksUri');
  if (!/^[A-Za-z0-9._~:@/+-]{1,255}$/.test(value)) {
    throw new Error(`Context consoleClientId must be an OAuth client id (letters, digits and ._~:@/+-); got "${value}"`);
  }
  if (!URL.canParse(jwt.issuer) || new URL(jwt.issuer).protocol !== 'https:') {
    throw new Error(`Context consoleClientId needs an https jwtIssuer; got "${jwt.issuer}"`);
  }
  return value;
}

function readThrottle(context: ContextReader, rateKey: string, burstKey: string): ServiceStackProps['apiThrottle'] {
  const rateLimit = readPositiveInt(context, rateKey);
  const burstLimit = readPositiveInt(context, burstKey);
  if (rateLimit === undefined && burstLimit === undefined) return undefined;
  if (rateLimit === undefined || burstLimit === undefined) {
    throw new Error(`Context ${rateKey} and ${burstKey} must be set together`);
  }
  return { rateLimit, burstLimit };
}

function readPositiveInt(context: ContextReader, key: string): number | undefined {
  const raw = context(key);
  if (raw === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new Error(`Context ${key} must be a positive integer; got "${raw}"`);
  return Number(raw);
}

function readEmail(context: ContextReader, key: string): string | undefined {
  const raw = context(key);
  if (raw === undefined || EMAIL_PATTERN.test(raw)) return raw;
  throw new Error(`Context ${key} must be an e-mail address; got "${raw}"`);
}

/**
 * A list of ARN patterns, as a JSON array in cdk.json or comma-separated with `-c key=arn:…,arn:…`: the Lambda
 * functions rotations may invoke (lib/secret-rotation.ts checks each), the IAM roles syncs may assume (lib/syncs.ts).
 * `kind` names what the list holds in the refusal.
 */
function readArnList(key: string, value: unknown, kind = 'ARN patterns'): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list) || !list.every((pattern) => typeof pattern === 'string')) {
    throw new Error(`Context ${key} must be a list of ${kind} (a JSON array, or comma-separated)`);
  }
  return list.map((pattern) => pattern.trim()).filter((pattern) => pattern !== '');
}

/** A true/false context value (`-c syncOwnAccount=true` arrives as text). */
function readFlag(key: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`Context ${key} must be true or false; got "${String(value)}"`);
}

function readRemovalPolicy(context: ContextReader): ServiceStackProps['removalPolicy'] {
  const raw = context('removalPolicy');
  if (raw === undefined || raw === 'retain' || raw === 'destroy') return raw;
  throw new Error(`Context removalPolicy must be "retain" or "destroy"; got "${raw}"`);
}
