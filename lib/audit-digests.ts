import { CfnOutput, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectLockRetention } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { AUDIT_DIGESTER_FUNCTION as DIGESTER } from '../shared/platform/functions.ts';
import type { DigestKeyReader } from './apply-access.ts';
import { applyAccess } from './apply-access.ts';
import { AUDIT_DIGESTER_ACCESS } from './audit-digest-access.ts';
import { KEY_ADMINISTRATION_ACTIONS } from './encryption.ts';
import { acknowledgeWildcardResource } from './nag.ts';
import { ServiceFunction } from './service-function.ts';

/** decisions.md: `auditRetentionDays`, default 365; S3 takes a default retention of 1 to 36,500 days. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
export const MAX_AUDIT_RETENTION_DAYS = 36_500;

/** The only signature the digester makes (shared/audit-digests/digest-signer.ts): ECDSA over a SHA-256 it computed. */
const SIGNATURE_CONDITIONS = { StringEquals: { 'kms:SigningAlgorithm': 'ECDSA_SHA_256', 'kms:MessageType': 'DIGEST' } };

export interface AuditDigestsConstructProps {
  readonly stage: string;
  readonly table: ITable;
  /** The secrets key: the digester is given no use of it, but every access is applied with it. */
  readonly key: IKey;
  /** Days each object stays locked in compliance mode (context `auditRetentionDays`). */
  readonly retentionDays: number;
  readonly logRetention: RetentionDays;
  /** The digester's log group only: the bucket and the signing key are retained whatever this says. */
  readonly removalPolicy: RemovalPolicy;
}

/** Refuses a retention S3 would refuse, naming the context key, before a deploy gets that far. */
export function checkRetentionDays(days: number): void {
  if (!Number.isInteger(days) || days < 1 || days > MAX_AUDIT_RETENTION_DAYS) {
    throw new Error(`auditRetentionDays must be a whole number of days from 1 to ${MAX_AUDIT_RETENTION_DAYS}; got ${days}`);
  }
}

/**
 * Tamper evidence for the audit log (decisions.md v1.4, "Audit streams and tamper evidence"): the digester
 * (functions/audit-digester), run by an EventBridge rule 20 minutes after each hour, signs each workspace's chained
 * digests with an asymmetric KMS key and writes them, with the entries they cover, to a bucket under Object Lock in
 * compliance mode. The key policy lets the digester's role alone sign, so a digest cannot be forged without a
 * key-policy change (which CloudTrail records); the bucket keeps every object for `retentionDays`, whoever asks.
 */
export class AuditDigestsConstruct extends Construct implements DigestKeyReader {
  readonly bucket: Bucket;
  readonly signingKey: Key;
  readonly digester: ServiceFunction;
  readonly schedule: Rule;

  constructor(scope: Construct, id: string, props: AuditDigestsConstructProps) {
    super(scope, id);
    checkRetentionDays(props.retentionDays);
    this.bucket = digestBucket(this, props.retentionDays);
    this.digester = new ServiceFunction(this, 'DigesterFunction', {
      entry: DIGESTER.entry,
      timeout: Duration.seconds(DIGESTER.timeoutSeconds),
      memorySize: DIGESTER.memoryMb,
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
    });
    this.signingKey = signingKey(this, props.stage, this.digester);
    applyAccess(this.digester, AUDIT_DIGESTER_ACCESS, { table: props.table, key: props.key });
    this.grantDigester();
    // Lambda does not retry a failed run: the next one, an hour later, makes every digest this one missed.
    this.digester.function.configureAsyncInvoke({ retryAttempts: 0 });
    this.schedule = new Rule(this, 'DigestSchedule', {
      description: 'Makes the signed audit digests due, 20 minutes after each hour',
      schedule: Schedule.expression(DIGESTER.schedule),
      // A run EventBridge could not deliver is tried twice more within the hour, before the next one is due.
      targets: [new LambdaFunction(this.digester.function, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
    });
    new CfnOutput(this, 'AuditBucketName', {
      value: this.bucket.bucketName,
      description: 'Audit digests and their entries, under Object Lock (compliance mode)',
    }).overrideLogicalId('AuditBucketName');
    new CfnOutput(this, 'AuditSigningKeyArn', {
      value: this.signingKey.keyArn,
      description: 'The KMS key that signs audit digests (its public key verifies them)',
    }).overrideLogicalId('AuditSigningKeyArn');
  }

  /** Lets `fn` read the signing key's public key (kms:GetPublicKey on that key alone), and tells it the key's ARN. */
  bindPublicKeyReader(fn: ServiceFunction): void {
    fn.function.addEnvironment('AUDIT_SIGNING_KEY_ID', this.signingKey.keyArn);
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['kms:GetPublicKey'], resources: [this.signingKey.keyArn] }));
  }

  /**
   * What the digester does outside the table: signs with the key (its key policy allows this role alone) and reads
   * its public key; writes an object once (PutObject with If-None-Match) and reads one back to compare. No delete, no
   * retention or legal-hold change, no bypass, no listing: none would work on a locked object anyway, and none is
   * asked for.
   */
  private grantDigester(): void {
    const fn = this.digester;
    fn.function.addEnvironment('AUDIT_SIGNING_KEY_ID', this.signingKey.keyArn);
    fn.function.addEnvironment('AUDIT_BUCKET', this.bucket.bucketName);
    fn.function.addToRolePolicy(
      new PolicyStatement({ actions: ['kms:Sign'], resources: [this.signingKey.keyArn], conditions: SIGNATURE_CONDITIONS }),
    );
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['kms:GetPublicKey'], resources: [this.signingKey.keyArn] }));
    const objects = this.bucket.arnForObjects('*');
    fn.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [objects] }));
    acknowledgeWildcardResource(
      fn.role,
      objects,
      'The digester writes `<workspaceId>/<hourStart>.*` for every workspace and hour: the keys are known only at run time; the bucket holds nothing else.',
    );
  }
}

/**
 * The bucket: Object Lock with a default retention in compliance mode (no one, the root user included, can delete
 * or overwrite a locked version, or shorten its lock), so versioned as Object Lock requires; private, TLS only, and
 * encrypted with S3's own keys (SSE-S3): the objects are audit metadata and digests, never a secret value, and a KMS
 * key here would add a key to administer and a grant to the digester for no reader it keeps out (the bucket policy
 * and IAM already do). Retained whatever the stack's removal policy: a bucket of locked objects cannot be emptied,
 * so a delete would fail anyway; no lifecycle rule, so nothing expires before (or after) its retention.
 */
function digestBucket(scope: Construct, retentionDays: number): Bucket {
  const bucket = new Bucket(scope, 'DigestBucket', {
    objectLockEnabled: true,
    objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(retentionDays)),
    versioned: true,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      'Only the digester writes here, each object once, and compliance mode keeps it unchanged; reads of it belong in CloudTrail data events (docs/operations.md), not in a second bucket of access logs.',
  });
  return bucket;
}

/**
 * The signing key: ECC_NIST_P256 for ECDSA_SHA_256 (decisions.md), never rotated (KMS cannot rotate an asymmetric
 * key, and a verifier keeps the public key it has) and retained (the digests already signed stay verifiable with its
 * public key). The account administers it as it does the secrets key (lib/encryption.ts), which includes reading the
 * public key; only the digester's role signs, with the one algorithm and message type it uses. The role is named in
 * a condition, not as the principal, for the reason ServiceFunction.bindKey gives.
 */
function signingKey(scope: Construct, stage: string, digester: ServiceFunction): Key {
  const principals = [new AccountRootPrincipal()];
  const policy = new PolicyDocument({
    statements: [
      new PolicyStatement({
        sid: 'KeyAdministrationByThisAccount',
        principals,
        actions: [...KEY_ADMINISTRATION_ACTIONS],
        resources: ['*'],
      }),
      new PolicyStatement({
        sid: 'SignByTheDigesterOnly',
        principals,
        actions: ['kms:Sign'],
        resources: ['*'],
        conditions: { ...SIGNATURE_CONDITIONS, ArnEquals: { 'aws:PrincipalArn': digester.role.roleArn } },
      }),
    ],
  });
  return new Key(scope, 'SigningKey', {
    description: `Signs the audit digests of the ${stage} secrets service`,
    alias: `alias/${stage}-audit-digests`,
    keySpec: KeySpec.ECC_NIST_P256,
    keyUsage: KeyUsage.SIGN_VERIFY,
    policy,
    pendingWindow: Duration.days(30),
    removalPolicy: RemovalPolicy.RETAIN,
  });
}
