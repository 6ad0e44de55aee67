import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ApiConstruct, type JwtSettings } from './api.ts';
import { AuditDigestsConstruct, DEFAULT_AUDIT_RETENTION_DAYS } from './audit-digests.ts';
import { AuditStreamsConstruct } from './audit-streams.ts';
import { ConsoleSiteConstruct } from './console-site.ts';
import { DataConstruct } from './data.ts';
import { EncryptionConstruct } from './encryption.ts';
import { MonitoringConstruct } from './monitoring.ts';
import { SecretPurgeConstruct } from './secret-purge.ts';
import { SecretRotationConstruct } from './secret-rotation.ts';
import { SyncsConstruct } from './syncs.ts';
import { WebhookDeliveryConstruct } from './webhook-delivery.ts';

/** The stage whose data must outlive the stack: it cannot be given the destroy removal policy. */
export const PRODUCTION_STAGE = 'prod';
/** decisions.md's reveal limit per credential and minute. */
export const DEFAULT_REVEALS_PER_MINUTE = 120;

export interface ServiceStackProps extends StackProps {
  /** Prefixes names that must be unique per account and region (KMS alias, schedule group). @default 'prod' */
  readonly stage?: string;
  /** @default API tokens only */
  readonly jwt?: JwtSettings;
  /** Reveals per minute per credential. @default 120 */
  readonly revealsPerMinute?: number;
  /** Reveals per minute of all of a workspace's credentials. @default 10 times `revealsPerMinute` */
  readonly workspaceRevealsPerMinute?: number | undefined;
  /** @default { rateLimit: 100, burstLimit: 200 } */
  readonly apiThrottle?: { readonly rateLimit: number; readonly burstLimit: number };
  /** Stage throttling of the reveal routes alone. @default { rateLimit: 50, burstLimit: 100 } */
  readonly revealRouteThrottle?: { readonly rateLimit: number; readonly burstLimit: number } | undefined;
  /** Stage throttling of the login route. @default { rateLimit: 20, burstLimit: 40 } */
  readonly loginRouteThrottle?: { readonly rateLimit: number; readonly burstLimit: number } | undefined;
  /** The server id IAM logins must sign. @default the API's host name */
  readonly iamServerId?: string | undefined;
  /** Concurrency reserved for each API function. @default none (the functions share the account's pool) */
  readonly apiReservedConcurrency?: number | undefined;
  /** One of CloudWatch Logs' retention periods. @default 30 */
  readonly logRetentionDays?: number;
  /** `destroy` is for throwaway stages: the table, key and logs go with the stack. @default 'retain' */
  readonly removalPolicy?: 'retain' | 'destroy';
  /** Where alarm notifications go (an SNS e-mail subscription to confirm). @default the alarm topic has no subscriber */
  readonly alarmEmail?: string;
  /** A web console build (bin/console-build.ts) to serve through CloudFront. @default no console, no CORS */
  readonly consoleDir?: string | undefined;
  /** The console's OAuth client id at the `jwt` identity provider. @default the console signs in with a pasted token */
  readonly consoleClientId?: string | undefined;
  /**
   * ARN patterns of the Lambda functions rotations may invoke (`*` and `?` wildcards), each
   * `arn:aws:lambda:<region>:<account>:function:<name>`. @default none: only rotations without a function run
   */
  readonly rotationFunctionArns?: readonly string[] | undefined;
  /** IAM role ARN patterns syncs may assume (`${workspaceId}` allowed). @default none: syncs with `roleArn` fail */
  readonly syncRoleArns?: readonly string[] | undefined;
  /** Whether syncs without `roleArn` may write into this account. @default false */
  readonly syncOwnAccount?: boolean | undefined;
  /** Days each audit digest and its entries stay locked (compliance mode), 1 to 36,500. @default 365 */
  readonly auditRetentionDays?: number | undefined;
}

/**
 * The whole secrets service of one stage: the table, the KMS key, the HTTP API with one function per route group,
 * the webhook delivery pipeline, the rotation runner and its queue, the sync worker and its queue, the purger of deleted secrets, the
 * audit digests (bucket, signing key, digester), the audit stream worker and its queue, the dashboard and alarms that
 * watch them, and (given a build) the web console.
 */
export class ServiceStack extends Stack {
  readonly data: DataConstruct;
  readonly encryption: EncryptionConstruct;
  readonly delivery: WebhookDeliveryConstruct;
  readonly rotation: SecretRotationConstruct;
  readonly syncs: SyncsConstruct;
  readonly purge: SecretPurgeConstruct;
  readonly auditDigests: AuditDigestsConstruct;
  readonly auditStreams: AuditStreamsConstruct;
  readonly api: ApiConstruct;
  readonly monitoring: MonitoringConstruct;
  readonly consoleSite: ConsoleSiteConstruct | undefined;

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);
    const stage = props.stage ?? PRODUCTION_STAGE;
    if (stage === PRODUCTION_STAGE && props.removalPolicy === 'destroy') {
      throw new Error(`removalPolicy "destroy" is refused for the ${PRODUCTION_STAGE} stage: its table and key must be retained`);
    }
    const removalPolicy = props.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const logRetention = toRetentionDays(props.logRetentionDays ?? 30);
    if (props.consoleClientId !== undefined && !(props.jwt && props.consoleDir)) {
      throw new Error('consoleClientId needs the JWT settings (jwtIssuer, jwtAudience, jwtJwksUri) and a console');
    }
    this.data = new DataConstruct(this, 'Data', { removalPolicy });
    this.encryption = new EncryptionConstruct(this, 'Encryption', { stage, removalPolicy });
    const resources = { table: this.data.table, key: this.encryption.key, logRetention, removalPolicy };
    // The site first: the API's CORS names its origin; its files, which name the API's URL, come after the API.
    this.consoleSite =
      props.consoleDir === undefined
        ? undefined
        : new ConsoleSiteConstruct(this, 'ConsoleSite', { jwt: props.jwt, clientId: props.consoleClientId, removalPolicy, logRetention });
    this.syncs = new SyncsConstruct(this, 'Syncs', {
      ...resources,
      roleArns: props.syncRoleArns,
      ownAccount: props.syncOwnAccount,
      revealsPerMinute: props.revealsPerMinute ?? DEFAULT_REVEALS_PER_MINUTE,
      workspaceRevealsPerMinute: props.workspaceRevealsPerMinute,
    });
    this.auditStreams = new AuditStreamsConstruct(this, 'AuditStreams', resources);
    this.delivery = new WebhookDeliveryConstruct(this, 'WebhookDelivery', {
      stage,
      ...resources,
      syncs: this.syncs,
      auditStreams: this.auditStreams,
    });
    this.rotation = new SecretRotationConstruct(this, 'SecretRotation', { stage, ...resources, functionArns: props.rotationFunctionArns });
    this.purge = new SecretPurgeConstruct(this, 'SecretPurge', resources);
    this.auditDigests = new AuditDigestsConstruct(this, 'AuditDigests', {
      ...resources,
      stage,
      retentionDays: props.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS,
    });
    this.api = new ApiConstruct(this, 'Api', {
      ...resources,
      keyAlias: this.encryption.keyAlias,
      deliveries: this.delivery,
      rotations: this.rotation,
      syncs: this.syncs,
      digestKey: this.auditDigests,
      revealsPerMinute: props.revealsPerMinute ?? DEFAULT_REVEALS_PER_MINUTE,
      workspaceRevealsPerMinute: props.workspaceRevealsPerMinute,
      jwt: props.jwt,
      throttle: props.apiThrottle ?? { rateLimit: 100, burstLimit: 200 },
      revealRouteThrottle: props.revealRouteThrottle ?? { rateLimit: 50, burstLimit: 100 },
      loginRouteThrottle: props.loginRouteThrottle ?? { rateLimit: 20, burstLimit: 40 },
      iamServerId: props.iamServerId,
      reservedConcurrency: props.apiReservedConcurrency,
      consoleOrigin: this.consoleSite?.origin,
    });
    if (this.consoleSite && props.consoleDir !== undefined)
      this.consoleSite.publish({ dir: props.consoleDir, apiUrl: this.api.httpApi.apiEndpoint });
    this.monitoring = new MonitoringConstruct(this, 'Monitoring', {
      httpApi: this.api.httpApi,
      accessLogs: this.api.accessLogs,
      delivery: this.delivery,
      rotation: this.rotation,
      syncs: this.syncs,
      auditDigests: this.auditDigests,
      auditStreams: this.auditStreams,
      functions: {
        ...this.api.functions,
        ...this.delivery.functions,
        rotation: this.rotation.runner,
        'secret-purger': this.purge.purger,
        'sync-worker': this.syncs.worker,
        'audit-digester': this.auditDigests.digester,
        'audit-stream-worker': this.auditStreams.worker,
      },
      key: this.encryption.key,
      alarmEmail: props.alarmEmail,
    });
  }
}

/** Maps a day count to CloudWatch Logs' retention, which accepts only certain values (1, 3, 5, 7, 14, 30, ...). */
export function toRetentionDays(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter((value) => typeof value === 'number');
  if (!allowed.includes(days)) {
    throw new Error(`logRetentionDays must be one of ${allowed.join(', ')}; got ${days}`);
  }
  return days as RetentionDays;
}
